// Process plumbing shared by `npm start` and `npm run worker`: clean shutdown on Ctrl-C, one-line fatal errors.
import type { Worker } from '@temporalio/worker';
import { ConfigError } from '../temporal.config';

/** Runs the worker until SIGINT/SIGTERM, then lets in-flight tasks finish and calls cleanup. */
export async function runUntilSignalled(worker: Worker, cleanup: () => Promise<void>): Promise<void> {
  // Ctrl-C can arrive more than once (the terminal signals the whole process group and wrappers such as npm or
  // tsx relay it again); only the first starts the shutdown, the rest must not kill a draining worker.
  const stop = () => {
    if (worker.getState() === 'RUNNING') {
      console.log('\n[countersign] shutting down...');
      worker.shutdown();
    }
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await worker.run();
  } finally {
    await cleanup();
  }
}

export function failWith(err: unknown): never {
  const message = err instanceof ConfigError ? err.message : err instanceof Error ? err.message.split('\n')[0] : String(err);
  console.error(`countersign: ${message}`);
  if (!(err instanceof ConfigError) && process.env.COUNTERSIGN_DEBUG) console.error(err);
  process.exit(1);
}
