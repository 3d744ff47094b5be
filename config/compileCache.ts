// Imported first by `npm run worker` (worker/main.ts), before any other module loads: Node's on-disk compile cache,
// so that a restarted worker (a crash, a deploy) reads its modules' compiled code instead of compiling them again.
// The directory is Node's: NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off. Set in the environment too, so that the workflow thread, a thread of its own, uses the same cache.
import { constants, enableCompileCache, getCompileCacheDir } from 'node:module';

if (enableCompileCache().status !== constants.compileCacheStatus.DISABLED) {
  const dir = getCompileCacheDir();
  // The directory Node names ends in a version folder of its own, which it adds again from the variable.
  if (dir && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = dir.replace(/[/\\][^/\\]+$/, '');
}
