// The shape the code keeps: no product file over 300 lines, and no two product modules with the same name (a
// folder's index.ts is its entry point, not a module of its own).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const root = join(__dirname, '../..');
const PRODUCT = ['contract', 'core', 'links', 'storage', 'codec', 'config', 'workflows', 'activities', 'agents', 'worker', 'client', 'servers', 'cli', 'entries', 'devtools'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

const files = [...PRODUCT.flatMap((d) => sources(join(root, d))), join(root, 'temporal.config.ts')];

test('no product file is over 300 lines', () => {
  expect(files.length).toBeGreaterThan(100);
  const long = files.map((f) => [relative(root, f), readFileSync(f, 'utf8').split('\n').length - 1] as const).filter(([, n]) => n > 300);
  expect(long).toEqual([]);
});

test('no two product modules share a base name', () => {
  const byName = new Map<string, string[]>();
  for (const f of files) {
    const name = basename(f).replace(/\.(ts|mjs|js)$/, '');
    if (name === 'index') continue;
    byName.set(name, [...(byName.get(name) ?? []), relative(root, f)]);
  }
  expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
});
