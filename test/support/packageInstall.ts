// The npm package as a user gets it: `npm pack` (prepack builds dist/), then `npm install <tarball>` into a project
// of its own outside this repository. Installs prefer the npm cache the project's own install filled (exact
// versions), so they fetch nothing but metadata.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadDevConfig } from '../../temporal.config';
import { projectRoot } from './toolchain';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (or kills it at the timeout) and returns its exit code and output. */
export function run(
  cmd: string,
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: o.cwd, env: o.env ?? process.env, timeout: o.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });

/**
 * `npm pack` of this project, once per jest run: the first test file to ask packs (prepack builds dist/, which two
 * packs at once would both rewrite) into a folder beside the run's workflow bundle, which globalTeardown removes; the
 * others wait for its tarball. Without the jest globalSetup, a pack of its own in a temporary folder.
 */
export async function packProject(): Promise<string> {
  const { bundle } = loadDevConfig().test;
  if (!bundle) return packInto(mkdtempSync(join(tmpdir(), 'countersign-pack-')));
  const dir = packDirOf(bundle);
  const ready = join(dir, 'packed.json');
  try {
    mkdirSync(dir); // atomic: exactly one test file of the run gets to pack
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return packedBy(ready);
  }
  let packed: { tarball?: string; error?: string };
  try {
    packed = { tarball: await packInto(mkdtempSync(join(dir, 'out-'))) };
  } catch (err) {
    packed = { error: (err as Error).message };
  }
  writeFileSync(`${ready}.tmp`, JSON.stringify(packed));
  renameSync(`${ready}.tmp`, ready); // the waiters never read half a file
  if (packed.error !== undefined) throw new Error(packed.error);
  return packed.tarball!;
}

/** Where a jest run (known by its workflow bundle's path) keeps its one tarball. */
export const packDirOf = (bundle: string): string => `${bundle}.pack`;

/** The tarball another test file of this run packed (or its failure), once it is there. */
async function packedBy(ready: string, timeoutMs = 900_000): Promise<string> {
  for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await sleep(500)) {
    let packed: { tarball?: string; error?: string };
    try {
      packed = JSON.parse(readFileSync(ready, 'utf8')) as typeof packed;
    } catch {
      continue; // not packed yet
    }
    if (packed.error !== undefined) throw new Error(`another test file's npm pack failed: ${packed.error}`);
    return packed.tarball!;
  }
  throw new Error(`no tarball in ${ready} after ${timeoutMs / 1000} s: did the test file packing it die?`);
}

/** `npm pack` of this project into `dest`; returns the tarball's path. */
async function packInto(dest: string): Promise<string> {
  const r = await npm(['pack', '--pack-destination', dest], projectRoot);
  if (r.code !== 0) throw new Error(`npm pack failed (${r.code}): ${r.stderr}`);
  const packed = readdirSync(dest).filter((f) => f.endsWith('.tgz'));
  if (packed.length !== 1) throw new Error(`npm pack left ${packed.length} tarballs in ${dest}: ${r.stdout}`);
  return join(dest, packed[0]!);
}

/** `npm install` of the given specs (a tarball path among them) in `dir`; throws with npm's output on failure. */
export async function npmInstall(dir: string, specs: string[]): Promise<void> {
  const r = await npm(['install', '--prefer-offline', ...specs], dir);
  if (r.code !== 0) throw new Error(`npm install ${specs.join(' ')} failed in ${dir} (${r.code}): ${r.stderr}`);
}

/** The exact version this project pins for a (dev) dependency: consumers install the same, from the cache. */
export function pinned(name: string): string {
  const pkg = require(join(projectRoot, 'package.json')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const version = pkg.dependencies[name] ?? pkg.devDependencies[name];
  if (!version) throw new Error(`${name} is not a dependency of this project`);
  return version;
}
