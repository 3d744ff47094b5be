// devtools/sourceCli.cjs: a checkout's CLI runs from a bundle of its sources, rebuilt when one of them changed.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/toolchain';

const manifestPath = join(projectRoot, '.cli-cache/cli.json');
const bundlePath = join(projectRoot, '.cli-cache/cli.js');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(projectRoot, 'bin/countersign.js'), ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
const manifest = () => JSON.parse(readFileSync(manifestPath, 'utf8')) as { sources: Record<string, string> };

test('the bundle names every project source it was made from, and a changed one makes a new bundle', () => {
  expect(cli('--help').status).toBe(0);
  const { sources } = manifest();
  expect(Object.keys(sources)).toEqual(
    expect.arrayContaining(['package-lock.json', 'cli/cli.ts', 'cli/lazyLoads.ts', 'temporal.config.ts']),
  );
  expect(Object.keys(sources).some((path) => path.includes('node_modules'))).toBe(false);

  // Unchanged sources: the same bundle runs again.
  const built = statSync(bundlePath).mtimeMs;
  expect(cli('help').status).toBe(0);
  expect(statSync(bundlePath).mtimeMs).toBe(built);

  // A source whose digest no longer matches (as after an edit) makes the next command build again first.
  writeFileSync(manifestPath, JSON.stringify({ sources: { ...sources, 'cli/cli.ts': 'edited' } }));
  const help = cli('pending', '--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('every pending approval');
  expect(manifest().sources['cli/cli.ts']).toBe(sources['cli/cli.ts']);
  expect(statSync(bundlePath).mtimeMs).toBeGreaterThan(built);
});
