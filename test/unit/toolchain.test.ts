// scripts/temporal-toolchain.mjs: resolution order, its failure message, and where postinstall fetches nothing.
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

test('postinstall fetches nothing where the binaries are not needed, says why, and refuses a bad switch', () => {
  const postinstall = (env: NodeJS.ProcessEnv, at = script) =>
    run(at, { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, ['--postinstall']);
  const skipped = (why: string) =>
    `[temporal-toolchain] nothing fetched (${why}); in a clone, npm start and the tests fetch the binaries when they need them\n`;
  // npm runs a dependency's script with INIT_CWD the project that installs it.
  const service = mkdtempSync(join(tmpdir(), 'service-'));
  expect(postinstall({ INIT_CWD: service })).toMatchObject({
    status: 0,
    stdout: skipped(`installed as a dependency of ${service}`),
  });
  expect(postinstall({ npm_config_global: 'true' }).stdout).toBe(skipped('a global install'));
  expect(postinstall({ INIT_CWD: projectRoot, COUNTERSIGN_SKIP_TOOLCHAIN: '1' }).stdout).toBe(
    skipped('COUNTERSIGN_SKIP_TOOLCHAIN=1'),
  );
  expect(postinstall({ COUNTERSIGN_SKIP_TOOLCHAIN: 'yes' })).toMatchObject({
    status: 1,
    stdout: '',
    stderr:
      '[temporal-toolchain] error: COUNTERSIGN_SKIP_TOOLCHAIN=yes: set it to 1 to skip fetching the binaries, or unset it\n',
  });
  // Inside node_modules, as npm unpacks the package; nothing on PATH, so a fetch would fail.
  const unpacked = join(service, 'node_modules/countersign/scripts');
  mkdirSync(unpacked, { recursive: true });
  copyFileSync(script, join(unpacked, 'temporal-toolchain.mjs'));
  expect(postinstall({ PATH: join(service, 'empty-path') }, join(unpacked, 'temporal-toolchain.mjs'))).toMatchObject({
    status: 0,
    stdout: skipped('installed as a dependency'),
  });
  // In the clone (npm install there, or from one of its folders), it resolves the binaries as before.
  binaryPath('temporal');
  const clone = postinstall({ INIT_CWD: join(projectRoot, 'docs') });
  expect(clone.status).toBe(0);
  expect(clone.stdout).toMatch(/temporal: \S+ \(already in \.temporal\/bin\)/);
});
