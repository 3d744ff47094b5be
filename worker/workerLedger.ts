// The approvals ledger a worker writes (COUNTERSIGN_LEDGER_URL): opened once per worker, closed when the worker
// stops, and checked every HEALTH_CHECK_MS while it runs, so countersign_ledger_up says the truth even while no run
// writes (a ledger that cannot be reached is never silent; /readyz says so too, worker/metricsEndpoint.ts).
import type { Worker } from '@temporalio/worker';
import { ConfigError } from '../temporal.config';
import { type LedgerStore, ledgerInUse } from '../storage/ledger/ledgerStore';
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
    // A database down right now (a restart): the worker starts all the same, and its writes wait until it is back.
    if (UNREACHABLE.test((err as Error).message ?? '')) return withChecks(new LaterLedger(url));
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
  return store ? withChecks(store) : undefined;
}

/**
 * Which ledger a worker writes, printed at start: a SQLite path is relative to the folder the process started in, so
 * a service and the CLI started elsewhere would each use a ledger of their own (the id tells them apart).
 */
export const ledgerLine = (store: LedgerStore | undefined): string =>
  store ? ledgerInUse(store) : 'approvals ledger: off (COUNTERSIGN_LEDGER_URL=off): runs write none';

function withChecks(opened: LedgerStore): WorkerLedger {
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

/** Errors that say the database cannot be reached now, rather than that the URL or its credentials are wrong. */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|EAI_AGAIN|the database system is (starting up|shutting down)/;

/**
 * A PostgreSQL ledger that could not be reached when the worker started: opened at the first write or check that
 * finds it back. Until then each write fails (the activity retries it) and /readyz and countersign_ledger_up say so.
 */
class LaterLedger implements LedgerStore {
  readonly describe: string;
  private opening: Promise<LedgerStore> | undefined;

  constructor(private readonly url: string) {
    this.describe = `postgres ${redacted(url)}`;
  }

  private store(): Promise<LedgerStore> {
    this.opening ??= openLedger(this.url).then(
      (s) => (this.opened = s!),
      (err: Error) => {
        this.opening = undefined; // the next write or check tries again
        throw new Error(`the approvals ledger is not open yet: ${err.message.split('\n')[0]}`);
      },
    );
    return this.opening;
  }

  write: LedgerStore['write'] = async (w) => (await this.store()).write(w);
  writeMany: LedgerStore['writeMany'] = async (ws) => (await this.store()).writeMany(ws);
  approvals: LedgerStore['approvals'] = async (q) => (await this.store()).approvals(q);
  report: LedgerStore['report'] = async (q) => (await this.store()).report(q);
  verify: LedgerStore['verify'] = async (q) => (await this.store()).verify(q);
  chain: LedgerStore['chain'] = async (k) => (await this.store()).chain(k);
  prune: LedgerStore['prune'] = async (before) => (await this.store()).prune(before);
  heldRuns: LedgerStore['heldRuns'] = async (ids) => (await this.store()).heldRuns(ids);
  placeLeaves: LedgerStore['placeLeaves'] = async () => (await this.store()).placeLeaves();
  markCheckpointed: LedgerStore['markCheckpointed'] = async (size) => (await this.store()).markCheckpointed(size);
  leaves: LedgerStore['leaves'] = async (after, limit) => (await this.store()).leaves(after, limit);
  chainState: LedgerStore['chainState'] = async (k) => (await this.store()).chainState(k);
  private opened: LedgerStore | undefined;

  get id(): string | undefined {
    return this.opened?.id;
  }
  ping: LedgerStore['ping'] = async () => (await this.store()).ping();

  async close(): Promise<void> {
    const opened = await this.opening?.catch(() => undefined);
    await opened?.close();
  }
}
