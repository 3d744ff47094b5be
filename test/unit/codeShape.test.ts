// The shape the code keeps: no product file over 300 lines, and no two product modules with the same name (a
// folder's index.ts is its entry point, not a module of its own).
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { productFiles } from '../support/configScan';

const root = join(__dirname, '../..');
const files = productFiles(root);

test('no product file is over 300 lines', () => {
  expect(files.length).toBeGreaterThan(100);
  const long = files
    .map((f) => [f, readFileSync(join(root, f), 'utf8').split('\n').length - 1] as const)
    .filter(([, n]) => n > 300);
  expect(long).toEqual([]);
});

test('no two product modules share a base name', () => {
  const byName = new Map<string, string[]>();
  for (const f of files) {
    const name = basename(f).replace(/\.(ts|mjs|js)$/, '');
    if (name === 'index') continue;
    byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
});
