// Every TypeScript block (```ts / ```typescript) in README.md, CONTRIBUTING.md and docs/*.md type-checks against
// the repository's sources, as a reader would paste it. The rule (CONTRIBUTING.md, "Code in the docs"):
//   - each block is its own ES module (ES2022: top-level await works), compiled as strictly as the project;
//   - package imports resolve to the sources as in a clone (tsconfig.json's paths: 'countersign' → agents/index.ts,
//     'countersign/worker' → worker/index.ts, 'countersign/client' → entries/client.ts, …);
//   - a block whose first line is `// continues` is appended to the block before it in the same file;
//   - what a block uses but does not define, it declares (`declare const payments: Payments;`).
// One TypeScript program holds every block (and the negative control below), so the check costs one compile.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { type FencedBlock, readDocs, REPO } from '../support/docBlocks';
import { sourceEntryPoints } from '../support/entryPoints';

const CONTINUES = /^\s*\/\/\s*continues\b/;

export interface Snippet {
  /** Where each line of `text` comes from, e.g. `docs/cli.md:42`. */
  origin: string[];
  text: string;
  /** The block's first line, for messages: `README.md:73`. */
  where: string;
}

/** The TypeScript blocks of the given fenced blocks as modules, `// continues` blocks joined to the one before. */
export function snippetsOf(blocks: FencedBlock[]): Snippet[] {
  const out: Snippet[] = [];
  let last: Snippet | undefined;
  for (const b of blocks) {
    if (b.lang !== 'ts' && b.lang !== 'typescript') continue;
    const origin = b.lines.map((_, i) => `${b.file}:${b.line + i}`);
    if (CONTINUES.test(b.lines[0] ?? '')) {
      if (!last || !last.where.startsWith(`${b.file}:`))
        throw new Error(`${b.file}:${b.line}: "// continues" but no TypeScript block comes before it in this file`);
      last.text += `\n${b.lines.join('\n')}`;
      last.origin.push(...origin);
      continue;
    }
    last = { origin, text: b.lines.join('\n'), where: `${b.file}:${b.line}` };
    out.push(last);
  }
  return out;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(REPO, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO);
  return {
    ...options,
    noEmit: true,
    module: ts.ModuleKind.ES2022,
    target: ts.ScriptTarget.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    moduleDetection: ts.ModuleDetectionKind.Force,
    types: ['node'],
    typeRoots: [join(REPO, 'node_modules/@types')],
    paths: {
      ...Object.fromEntries(Object.entries(sourceEntryPoints()).map(([name, file]) => [name, [file]])),
      // The MCP SDK's subpaths ('…/client/index.js') through its package exports, which Node10 resolution does not read.
      '@modelcontextprotocol/sdk/*': [join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/cjs/*')],
      // Everything else from the project's node_modules, as an installed consumer would find it.
      '*': [join(REPO, 'node_modules/*'), join(REPO, 'node_modules/@types/*')],
    },
  };
}

/** Compiles every snippet in one program; one line per diagnostic: `file:line: TS1234 message`. */
export function typeCheck(snippets: Snippet[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-doc-snippets-'));
  try {
    const files = snippets.map((s, i) => {
      const path = join(dir, `snippet${i}.ts`);
      writeFileSync(path, s.text);
      return path;
    });
    const program = ts.createProgram(files, compilerOptions());
    const problems = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
      (d) => `compiler: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
    files.forEach((path, i) => {
      const source = program.getSourceFile(path)!;
      for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
        const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
        const where = snippets[i]!.origin[line] ?? snippets[i]!.where;
        problems.push(
          `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (block at ${snippets[i]!.where})`,
        );
      }
    });
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const docs = readDocs();
const docSnippets = docs.flatMap((d) => snippetsOf(d.blocks));

// Controls, compiled with the docs: a wrong call of a real API, an unknown export, and a `// continues` block
// that uses what its predecessor declared (fine) next to one that uses something nobody declared.
const controls = snippetsOf(
  [
    `import { Runner } from 'countersign/client';\nconst runner = await Runner.connect();\nawait runner.run(42, 'hello');`,
    `import { defineTool, noSuchExport } from 'countersign';\nvoid defineTool; void noSuchExport;`,
    `const base = 1;`,
    `// continues\nconst next: number = base + 1;\nvoid next;`,
    `// continues\nvoid undeclaredThing;`,
  ].map((text, i) => ({ file: 'control.md', lang: 'ts', line: 100 * (i + 1), lines: text.split('\n') })),
);

let problems: string[] = [];
beforeAll(() => {
  problems = typeCheck([...docSnippets, ...controls]);
}, 120_000);

test('the docs hold TypeScript blocks to check', () => {
  expect(docSnippets.length).toBeGreaterThan(10);
});

test('every TypeScript block in the docs type-checks', () => {
  const ours = problems.filter((p) => !p.startsWith('control.md:'));
  expect(ours).toEqual([]);
});

test('negative control: wrong snippets get a diagnostic each, with file and line', () => {
  const control = problems.filter((p) => p.startsWith('control.md:'));
  expect(control).toEqual([
    expect.stringMatching(
      /^control\.md:102: TS2345 Argument of type 'number' is not assignable to parameter of type 'AgentRef'/,
    ),
    expect.stringMatching(/^control\.md:200: TS2305 .*noSuchExport/),
    expect.stringMatching(/^control\.md:501: TS2304 Cannot find name 'undeclaredThing'/),
  ]);
});

test('"// continues" needs a block before it in the same file', () => {
  expect(() => snippetsOf([{ file: 'x.md', lang: 'ts', line: 3, lines: ['// continues', 'void 0;'] }])).toThrow(
    'x.md:3: "// continues" but no TypeScript block comes before it in this file',
  );
});
