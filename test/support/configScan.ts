// The configuration rule, checked over the product's sources (test/unit/configScan.test.ts): only temporal.config.ts
// (and its helpers in config/) read the environment, and every COUNTERSIGN_* / OPENAI_* / TEMPORAL_* name the
// product mentions is declared in its schemas. Parsed with the TypeScript compiler, so a name in a comment is told
// from one in code, and a property called `env` on something other than `process` is left alone.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** The product's folders (tests, scripts, benchmarks and examples are not the product). */
export const PRODUCT_DIRS = [
  'contract',
  'core',
  'links',
  'storage',
  'codec',
  'config',
  'workflows',
  'activities',
  'agents',
  'adapters',
  'worker',
  'client',
  'servers',
  'cli',
  'entries',
  'devtools',
];
/** The configuration module: the only place that reads the environment. */
export const CONFIG_MODULE = (file: string) => file === 'temporal.config.ts' || file.startsWith('config/');

export interface Finding {
  file: string;
  line: number;
  problem: string;
}

const NAME = /\b(?:COUNTERSIGN|OPENAI|TEMPORAL)_[A-Z0-9_]*(\*)?/g;

/** A name as written is declared, or a prefix of declared names (`COUNTERSIGN_PAYLOAD_*`, `TEMPORAL_TLS*`). */
function declaredName(name: string, wildcard: boolean, declared: ReadonlySet<string>): boolean {
  if (declared.has(name)) return true;
  for (const d of declared) {
    if (d.endsWith('*') && name.startsWith(d.slice(0, -1))) return true; // TEMPORAL_GRPC_META_X_FOO
    if ((wildcard || name.endsWith('_')) && d.startsWith(name)) return true;
  }
  return false;
}

const isProcess = (e: ts.Expression) =>
  (ts.isIdentifier(e) && e.text === 'process') || (ts.isPropertyAccessExpression(e) && e.name.text === 'process'); // globalThis.process

/** Every environment read and every undeclared variable name in one source file. */
export function scanSource(file: string, source: string, declared: ReadonlySet<string>): Finding[] {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const findings: Finding[] = [];
  const mayRead = CONFIG_MODULE(file);
  const report = (pos: number, problem: string) =>
    findings.push({ file, line: sf.getLineAndCharacterOfPosition(pos).line + 1, problem });
  const names = (text: string, pos: number, where: string) => {
    for (const m of text.matchAll(NAME))
      if (!declaredName(m[0].replace(/\*$/, ''), Boolean(m[1]), declared))
        report(pos, `${m[0]} (in ${where}) is not declared in temporal.config.ts`);
  };

  const visit = (node: ts.Node): void => {
    if (!mayRead) {
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression))
        report(node.getStart(), `reads process.env: ${node.parent.getText().slice(0, 80)}`);
      if (
        ts.isElementAccessExpression(node) &&
        isProcess(node.expression) &&
        ts.isStringLiteralLike(node.argumentExpression) &&
        node.argumentExpression.text === 'env'
      )
        report(node.getStart(), 'reads process["env"]');
      if (
        ts.isVariableDeclaration(node) &&
        node.initializer &&
        isProcess(node.initializer) &&
        ts.isObjectBindingPattern(node.name) &&
        node.name.elements.some((e) => (e.propertyName ?? e.name).getText() === 'env')
      )
        report(node.getStart(), 'takes env out of process');
      if (
        ts.isImportDeclaration(node) &&
        ts.isStringLiteral(node.moduleSpecifier) &&
        /^(node:)?process$/.test(node.moduleSpecifier.text) &&
        /\benv\b/.test(node.importClause?.getText() ?? '')
      )
        report(node.getStart(), "imports env from 'process'");
      // A variable read off an environment object that was passed around (env.COUNTERSIGN_X, env['OPENAI_Y']).
      const key = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)
          ? node.argumentExpression.text
          : undefined;
      const offProcessEnv =
        (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) &&
        node.expression.getText().replace(/^globalThis\./, '') === 'process.env'; // reported above
      if (key && !offProcessEnv && new RegExp(`^${NAME.source}$`).test(key))
        report(node.getStart(), `reads ${key} off an environment object: take it from the loaded configuration`);
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      names(node.text, node.getStart(), 'a string');
    ts.forEachChild(node, visit);
  };
  visit(sf);

  // Comments (the trivia before every token): a name a comment promises must exist too.
  const seen = new Set<number>();
  const comments = (node: ts.Node): void => {
    const at = node.getFullStart();
    for (const r of [
      ...(ts.getTrailingCommentRanges(source, at) ?? []),
      ...(ts.getLeadingCommentRanges(source, at) ?? []),
    ]) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      names(source.slice(r.pos, r.end), r.pos, 'a comment');
    }
    for (const child of node.getChildren(sf)) comments(child);
  };
  comments(sf);
  return findings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The product's source files, relative to `root`, with temporal.config.ts. */
export function productFiles(root: string): string[] {
  const dirs = PRODUCT_DIRS.map((d) => join(root, d)).filter((d) =>
    statSync(d, { throwIfNoEntry: false })?.isDirectory(),
  );
  return ['temporal.config.ts', ...dirs.flatMap(sourceFiles).map((f) => relative(root, f).split(sep).join('/'))];
}

export function scanProduct(root: string, declared: ReadonlySet<string>): { files: string[]; findings: Finding[] } {
  const files = productFiles(root);
  return { files, findings: files.flatMap((f) => scanSource(f, readFileSync(join(root, f), 'utf8'), declared)) };
}
