// The layer table holds: lint passes on the product (npm test runs `eslint .`), every fixture that breaks a rule
// fails it (the negative control), the one allowed cross-layer form passes, and docs/architecture.md shows the same
// table as eslint/layers.mjs.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const fixtures = join(root, 'test/fixtures/layers');
type Layer = { name: string; paths: string[]; imports: string[]; typeImports?: string[] };

// ESLint and the table are ES modules: one child process lints every fixture as if it lived at its `as:` path.
const script = `
  import { ESLint } from 'eslint';
  import { LAYERS } from './eslint/layers.mjs';
  import { readFileSync } from 'node:fs';
  const eslint = new ESLint({ cwd: process.cwd() });
  const out = {};
  for (const [file, as] of JSON.parse(process.argv[1])) {
    const [r] = await eslint.lintText(readFileSync(file, 'utf8'), { filePath: as });
    out[file] = r.messages.filter((m) => m.ruleId === 'countersign/layers').map((m) => m.message);
  }
  console.log(JSON.stringify({ out, LAYERS }));`;
const files = readdirSync(fixtures).filter((f) => f.endsWith('.ts'));
const targets = files.map((f) => {
  const as = /^\/\/ as: (\S+)/.exec(readFileSync(join(fixtures, f), 'utf8'))?.[1];
  if (!as) throw new Error(`${f}: first line must be "// as: <path>"`);
  return [join(fixtures, f), join(root, as)];
});
const linted = JSON.parse(
  execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(targets)], {
    cwd: root,
    encoding: 'utf8',
  }),
) as { out: Record<string, string[]>; LAYERS: Layer[] };
const lintAs = async (file: string) => linted.out[join(fixtures, file)]!;

const breaking = readdirSync(fixtures).filter((f) => f.endsWith('.ts') && !f.startsWith('allowed'));

test('there are fixtures for each kind of rule', () => {
  expect(breaking.length).toBeGreaterThanOrEqual(8);
});

test.each(breaking)('%s breaks the layer table and lint says so', async (file) => {
  const messages = await lintAs(file);
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatch(/code may not import .*\(layer table: eslint\/layers\.mjs\)/);
});

test('workflow code may import the activities’ types', async () => {
  expect(await lintAs('allowedTypeImport.ts')).toEqual([]);
});

test('docs/architecture.md shows the layer table lint enforces', async () => {
  const { LAYERS } = linted;
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  for (const layer of LAYERS) {
    const row = doc.split('\n').find((l) => l.startsWith(`| ${layer.name} |`));
    expect(row).toBeDefined();
    const cells = row!.split('|').map((c) => c.trim());
    expect(cells[2]).toBe(layer.paths.map((p) => `\`${p}\``).join(', '));
    const may = [...layer.imports, ...(layer.typeImports ?? []).map((t) => `${t} (types only)`)];
    expect(cells[3]).toBe(may.join(', ') || '—');
  }
});
