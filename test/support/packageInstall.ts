// The npm package as a user gets it: `npm pack` (prepack builds dist/), then `npm install <tarball>` into a project
// of its own outside this repository. Installs prefer the npm cache the project's own install filled (exact
// versions), so they fetch nothing but metadata.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** `npm pack` of this project into a temporary folder; returns the tarball's path. */
export async function packProject(): Promise<string> {
  const dest = mkdtempSync(join(tmpdir(), 'countersign-pack-'));
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
