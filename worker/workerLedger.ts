// The approvals ledger a worker writes (COUNTERSIGN_LEDGER_URL): opened once per worker, closed when the worker
// stops, and checked every HEALTH_CHECK_MS while it runs, so countersign_ledger_up says the truth even while no run
// writes (a ledger that cannot be reached is never silent; /readyz says so too, worker/metricsEndpoint.ts).
import type { Worker } from '@temporalio/worker';
import { ConfigError } from '../temporal.config';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import { pingLedger } from '../activities/ledgerActivity';

export const HEALTH_CHECK_MS = 15_000;

export interface WorkerLedger {
  store: LedgerStore;
  /** The worker, whose run() now checks the ledger while it runs and closes it once it has stopped. */
  closedAfter(worker: Worker): Worker;
}

/** A URL with its password hidden, for messages (it must never reach logs). */
export const withoutPassword = (url: string): string => url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');

/** The worker's ledger, or undefined when it keeps none (absent or `off`). A store that cannot be opened: one ConfigError. */
export async function openWorkerLedger(url: string | undefined): Promise<WorkerLedger | undefined> {
  if (!url || url === 'off') return undefined;
  let store: LedgerStore | undefined;
  try {
    // Loaded only by a worker that keeps a ledger: the stores bring node:sqlite and pg.
    const { openLedger } = await import('../storage/ledger/ledgerUrl');
    store = await openLedger(url);
  } catch (err) {
    const why = ((err as Error).message ?? String(err)).split('\n')[0]!.replaceAll(url, withoutPassword(url));
    throw new ConfigError(
      `COUNTERSIGN_LEDGER_URL=${withoutPassword(url)}: the approvals ledger cannot be opened (${why}); set it to a writable file path, a reachable postgres:// URL, or off`,
    );
  }
  if (!store) return undefined;
  const opened = store;
  return {
    store: opened,
    closedAfter(worker) {
      const run = worker.run.bind(worker);
      worker.run = async () => {
        const check = setInterval(() => void pingLedger(opened).catch(() => undefined), HEALTH_CHECK_MS);
        check.unref();
        try {
          return await run();
        } finally {
          clearInterval(check);
          await opened.close().catch(() => undefined);
        }
      };
      return worker;
    },
  };
}
