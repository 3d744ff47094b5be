#!/usr/bin/env node
// `pretest`: makes sure what the test suite needs from the system is there, like `playwright install --with-deps`.
// Today that is one thing: the Web UI test (test/integration/webUi.test.ts) drives Debian's Chromium headless.
//
// Chromium is looked up as COUNTERSIGN_CHROMIUM_PATH (if set, only there), else /usr/bin/chromium, else `chromium` on
// PATH. Found: exits 0 without a word. Missing: as root with apt-get, installs Debian's `chromium` package (one
// progress line) and checks that it runs `--version`; otherwise prints one line saying what to install and exits 1.
// COUNTERSIGN_SKIP_PREREQUISITES=1 skips all of this. No dependencies; Node >= 22.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

if (process.env.COUNTERSIGN_SKIP_PREREQUISITES === '1') process.exit(0);

const DEFAULT_PATH = '/usr/bin/chromium';
const HOW = 'install it with `sudo apt-get install chromium` (Debian/Ubuntu) or set COUNTERSIGN_CHROMIUM_PATH';
const fail = (msg) => {
  process.stderr.write(`countersign tests: ${msg}\n`);
  process.exit(1);
};

function executable(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const onPath = (name) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(executable);

const findChromium = () => (executable(DEFAULT_PATH) ? DEFAULT_PATH : onPath('chromium'));

const explicit = process.env.COUNTERSIGN_CHROMIUM_PATH;
if (explicit) {
  if (executable(explicit)) process.exit(0);
  fail(`COUNTERSIGN_CHROMIUM_PATH=${explicit} is not an executable file; point it at a Chromium binary or unset it`);
}
if (findChromium()) process.exit(0);

// Missing. Install Debian's package when this process may: root, with apt-get.
const apt = onPath('apt-get');
if (process.getuid?.() !== 0 || !apt) fail(`Chromium is missing; ${HOW}`);

process.stderr.write(
  "countersign tests: Chromium is missing; installing Debian's chromium package (apt-get install chromium) ...\n",
);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const quiet = { env, stdio: 'ignore', timeout: 20 * 60_000 };
const update = spawnSync(apt, ['update', '-qq'], quiet);
const install = update.status === 0 ? spawnSync(apt, ['install', '-y', '-qq', 'chromium'], quiet) : undefined;
const step = install ? 'apt-get install -y chromium' : 'apt-get update';
const result = install ?? update;
if (result.error || result.status !== 0) {
  const why = result.error
    ? result.error.message
    : result.signal
      ? `killed by ${result.signal}`
      : `exit ${result.status}`;
  fail(`Chromium is missing and \`${step}\` failed (${why}); ${HOW}`);
}

const installed = findChromium();
if (!installed) fail(`Chromium is still missing after \`apt-get install chromium\`; ${HOW}`);
const version = spawnSync(installed, ['--version'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
  timeout: 60_000,
});
if (version.status !== 0 || !/chrom/i.test(version.stdout)) {
  fail(`Chromium was installed at ${installed} but \`${installed} --version\` does not run; ${HOW}`);
}
