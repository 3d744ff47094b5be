// The worker as production runs it: compiled JavaScript and the prebuilt workflow bundle (`npm run build`), built
// here into .temporal/worker-build/ (not dist/, which packing the package rebuilds) when the sources are newer than
// the last build. Used by the worker-crash suite and the bench's worker start.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnProcess, type Spawned } from './processes';
import { projectRoot } from './toolchain';

export const WORKER_BUILD = join(projectRoot, '.temporal/worker-build');
const STAMP = join(WORKER_BUILD, '.built');
/** What the package compiles: tsconfig.build.json's include list (a JSON file with // comments). */
const SOURCES = (
  JSON.parse(readFileSync(join(projectRoot, 'tsconfig.build.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
    include: string[];
  }
).include;

function newestSource(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return path.endsWith('.ts') ? s.mtimeMs : 0;
  return Math.max(0, ...readdirSync(path).map((f) => newestSource(join(path, f))));
}

/** Builds the compiled worker unless the build is newer than every source (one builder at a time across jest workers). */
export function ensureCompiledWorker(): string {
  const lock = join(projectRoot, '.temporal/worker-build.lock');
  mkdirSync(join(projectRoot, '.temporal'), { recursive: true });
  for (const deadline = Date.now() + 300_000; ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held for 5 minutes: remove it if no build runs`);
      execFileSync('sleep', ['1']);
    }
  }
  try {
    const fresh =
      existsSync(STAMP) &&
      statSync(STAMP).mtimeMs > Math.max(...SOURCES.map((s) => newestSource(join(projectRoot, s))));
    if (!fresh) {
      execFileSync(process.execPath, [join(projectRoot, 'scripts/build.mjs'), '--out', WORKER_BUILD], {
        cwd: projectRoot,
        stdio: 'ignore',
      });
      writeFileSync(STAMP, new Date().toISOString());
    }
  } finally {
    rmdirSync(lock);
  }
  return join(WORKER_BUILD, 'worker/main.js');
}

/** `node .temporal/worker-build/worker/main.js`: what `npm run worker` runs, compiled. */
export function spawnCompiledWorker(env: NodeJS.ProcessEnv): Spawned {
  return spawnProcess(process.execPath, [ensureCompiledWorker()], { cwd: projectRoot, env });
}
