// scripts/temporal-toolchain.mjs: resolution order and its failure message.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryPath, projectRoot } from '../support/toolchain';

const script = join(projectRoot, 'scripts/temporal-toolchain.mjs');
const run = (scriptPath: string, env: NodeJS.ProcessEnv, args: string[] = []) =>
  spawnSync(process.execPath, [scriptPath, ...args], { env, encoding: 'utf8', timeout: 60_000 });

test('is idempotent: a second run finds both binaries already installed', () => {
  binaryPath('temporal');
  const env = { ...process.env };
  delete env.TEMPORAL_CLI_PATH;
  delete env.TEMPORAL_TEST_SERVER_PATH;
  const r = run(script, env);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/temporal: \S+\/\.temporal\/bin\/temporal \(already in \.temporal\/bin\)/);
  expect(r.stdout).toMatch(/temporal-test-server: \S+ \(already in \.temporal\/bin\)/);
});

test('an env var wins, and a bad one is a clear error', () => {
  const cli = binaryPath('temporal');
  const good = run(script, { ...process.env, TEMPORAL_CLI_PATH: cli }, ['--print']);
  expect(good.stdout).toContain(`temporal=${cli}`);
  const bad = run(script, { ...process.env, TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain(
    'TEMPORAL_CLI_PATH=/nonexistent/temporal is not an executable temporal; fix or unset it',
  );
});

test('when nothing can provide a binary, the error names the three ways to provide it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolchain-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(script, join(dir, 'scripts/temporal-toolchain.mjs'));
  // No python3, go or mvn on this PATH, and an empty project: every source fails.
  const r = run(join(dir, 'scripts/temporal-toolchain.mjs'), { PATH: join(dir, 'empty-path'), HOME: dir });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('could not provide temporal');
  expect(r.stderr).toContain(
    'set TEMPORAL_CLI_PATH=/path/to/temporal, put the binary in .temporal/bin/temporal, or put temporal on PATH',
  );
  expect(r.stderr).toContain('set TEMPORAL_TEST_SERVER_PATH=');
});
