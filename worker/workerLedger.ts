// The approvals ledger a worker writes (COUNTERSIGN_LEDGER_URL): opened once per worker, closed when the worker
// stops, and checked every HEALTH_CHECK_MS while it runs, so countersign_ledger_up says the truth even while no run
// writes (a ledger that cannot be reached is never silent; /readyz says so too, worker/metricsEndpoint.ts).
import type { Worker } from '@temporalio/worker';
import { ConfigError } from '../temporal.config';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import { openLedger, redacted } from '../storage/ledger/ledgerUrl'; // loads a store (node:sqlite, pg) only when asked
import { pingLedger } from '../activities/ledgerActivity';

export const HEALTH_CHECK_MS = 15_000;

export interface WorkerLedger {
  store: LedgerStore;
  /** The worker, whose run() now checks the ledger while it runs and closes it once it has stopped. */
  closedAfter(worker: Worker): Worker;
}

/** The worker's ledger, or undefined when it keeps none (absent or `off`). A store that cannot be opened: one ConfigError. */
export async function openWorkerLedger(url: string | undefined): Promise<WorkerLedger | undefined> {
  if (!url || url === 'off') return undefined;
  let store: LedgerStore | undefined;
  try {
    store = await openLedger(url);
  } catch (err) {
    const why = ((err as Error).message ?? String(err)).split('\n')[0]!.replaceAll(url, redacted(url));
    const fix = 'set it to a writable file path, a reachable postgres:// URL, or off';
    // The store's own messages name the ledger (without its password); a bare system error gets the URL.
    throw new ConfigError(
      why.startsWith('COUNTERSIGN_LEDGER_URL')
        ? why
        : /approvals ledger/.test(why)
          ? `COUNTERSIGN_LEDGER_URL: ${why}; ${fix}`
          : `COUNTERSIGN_LEDGER_URL=${redacted(url)}: the approvals ledger cannot be opened (${why}); ${fix}`,
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
