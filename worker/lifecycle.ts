// Process plumbing shared by `npm start` and `npm run worker`: clean shutdown on Ctrl-C or a closed terminal,
// output that cannot crash the shutdown, one-line fatal errors.
import type { Worker } from '@temporalio/worker';
import { ConfigError, setting } from '../temporal.config';

/**
 * Writes to a closed stdout/stderr (`npm start | tee log` once tee died, a closed terminal) fail with EPIPE or EIO,
 * which Node raises as an 'error' event: without a listener that crashes the process in the middle of its shutdown,
 * before it stops what it started. Output is best effort; the cleanup is not.
 */
export function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners('error').includes(ignore)) stream.on('error', ignore);
  }
}
const ignore = () => undefined;

/** Runs the worker until SIGINT, SIGTERM or SIGHUP (terminal closed), then lets in-flight tasks finish and calls cleanup. */
export async function runUntilSignalled(worker: Worker, cleanup: () => Promise<void>): Promise<void> {
  tolerateClosedOutput();
  // Ctrl-C can arrive more than once (the terminal signals the whole process group and wrappers such as npm or
  // tsx relay it again); only the first starts the shutdown, the rest must not kill a draining worker.
  const stop = () => {
    if (worker.getState() === 'RUNNING') {
      console.log('\n[countersign] shutting down...');
      worker.shutdown();
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  try {
    await worker.run();
  } finally {
    await cleanup();
  }
}

/**
 * A crash (uncaught exception, or an unhandled rejection, which Node raises as one) still runs cleanup, for at most
 * boundMs, before exiting 1: best effort, so that `npm start` does not leave its dev server behind.
 */
export function cleanupOnCrash(cleanup: () => Promise<void>, boundMs = 15_000): void {
  let crashed = false;
  process.on('uncaughtException', (err) => {
    console.error('countersign: crashed:', err);
    if (crashed) return; // a second error while cleaning up: the first cleanup (or its bound) still ends us
    crashed = true;
    setTimeout(() => process.exit(1), boundMs); // keeps the process alive while cleanup runs, then ends it
    cleanup().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  });
}

/** COUNTERSIGN_DEBUG, read here because a failure may come before (or from) loading the configuration. */
function debugOn(): boolean {
  try {
    return Boolean(setting('COUNTERSIGN_DEBUG'));
  } catch {
    return false;
  }
}

export function failWith(err: unknown): never {
  const message =
    err instanceof ConfigError ? err.message : err instanceof Error ? err.message.split('\n')[0] : String(err);
  console.error(`countersign: ${message}`);
  if (!(err instanceof ConfigError) && debugOn()) console.error(err);
  process.exit(1);
}
