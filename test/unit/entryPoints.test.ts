// The package's entry points inside a clone: tsconfig.json's paths map each one (package.json "exports") to its
// source, which tsx follows, so `npx tsx approve.mts` in the clone imports the sources (the packed package maps
// them to dist/ instead: test/package/). An ES module imports these CommonJS sources by reading their names, and
// Node does not follow `export *` into a TypeScript file, so each entry names every value itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../support/docBlocks';
import { sourceEntryPoints } from '../support/entryPoints';

const exported = Object.keys(
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).exports as Record<string, unknown>,
)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'countersign' : `countersign/${key.slice(2)}`));

/** For each module: how many names a static `import * as` sees, and the values require() has that it misses. */
function importedNames(modules: string[], dir: string): Record<string, { seen: number; missing: string[] }> {
  const probe = join(dir, 'probe.mts');
  writeFileSync(
    probe,
    [
      `import { createRequire } from 'node:module';`,
      ...modules.map((m, i) => `import * as m${i} from ${JSON.stringify(m)};`),
      `const require = createRequire(import.meta.url);`,
      `const all = [${modules.map((m, i) => `[${JSON.stringify(m)}, m${i}]`).join(', ')}] as const;`,
      `const out: Record<string, unknown> = {};`,
      `for (const [name, ns] of all) {`,
      `  const values = Object.keys(require(name)).filter((k) => k !== '__esModule');`,
      // Node 23+ adds a 'module.exports' name beside 'default'; neither is one of the module's own.
      `  out[name] = { seen: Object.keys(ns).filter((k) => k !== 'default' && k !== 'module.exports').length, missing: values.filter((k) => !(k in ns)) };`,
      `}`,
      `console.log(JSON.stringify(out));`,
    ].join('\n'),
  );
  // From the repository, as `npx tsx approve.mts` runs: tsx reads the tsconfig.json of the working directory.
  const r = spawnSync(process.execPath, ['--import', 'tsx', probe], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-entry-points-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('every package entry point maps to its source in tsconfig.json, and nothing else is mapped', () => {
  expect(exported).toEqual([
    'countersign',
    'countersign/worker',
    'countersign/client',
    'countersign/servers',
    'countersign/gateway',
    'countersign/openai-agents',
    'countersign/ai-sdk',
  ]);
  expect(Object.keys(sourceEntryPoints()).sort()).toEqual([...exported].sort());
  expect(sourceEntryPoints()['countersign/client']).toBe(join(REPO, 'entries/client.ts'));
});

test('in a clone, an ES module imports every value of every entry point from the sources', () => {
  const names = importedNames(exported, dir);
  for (const entry of exported) expect({ entry, missing: names[entry]!.missing }).toEqual({ entry, missing: [] });
  expect(names['countersign/client']!.seen).toBeGreaterThan(50);
  expect(names['countersign/worker']!.seen).toBeGreaterThan(5);
  expect(names['countersign/gateway']!.seen).toBeGreaterThanOrEqual(6); // startGateway, the config's loaders, …
  expect(names['countersign/openai-agents']!.seen).toBeGreaterThanOrEqual(2); // fromOpenAIAgents, UnmappableAgentError
  expect(names['countersign/ai-sdk']!.seen).toBeGreaterThanOrEqual(2);
});

test('negative control: `export *` from a TypeScript file loses its names in an ES module import', () => {
  writeFileSync(join(dir, 'named.ts'), `export const one = 1;\n`);
  writeFileSync(join(dir, 'star.ts'), `export * from './named';\nexport const two = 2;\n`);
  expect(importedNames([join(dir, 'star.ts')], dir)[join(dir, 'star.ts')]).toEqual({ seen: 1, missing: ['one'] });
});
