// The approvals ledger's activities: recordLedger writes what a run (or the reviews workflow) hands it into the
// worker's ledger store, which the worker opens once from COUNTERSIGN_LEDGER_URL (worker/createWorker.ts) and
// closes when it stops. Writes are idempotent (keyed by workflow id, chain and seq), so the activity's retries, and a
// worker killed between the write and its completion, write nothing twice. Each write is counted in the worker's
// metrics, and the gauge countersign_ledger_up says whether the last write (or readiness check) reached the store.
import { Context, log } from '@temporalio/activity';
import { Runtime } from '@temporalio/worker';
import type { LedgerWrite, LedgerWriteResult } from '../contract/ledgerRecords';
import type { LedgerStore } from '../storage/ledger/ledgerStore';

export const LEDGER_METRIC_NAMES = {
  writes: 'countersign_ledger_writes_total',
  writeFailures: 'countersign_ledger_write_failures_total',
  up: 'countersign_ledger_up',
} as const;

/** The worker's ledger metrics, in the process's Temporal runtime (what /metrics serves). */
export const ledgerMetrics = {
  wrote(): void {
    const meter = Runtime.instance().metricMeter;
    meter.createCounter(LEDGER_METRIC_NAMES.writes, '1', 'approvals-ledger writes confirmed by the store').add(1);
    ledgerMetrics.up(true);
  },
  failed(): void {
    const meter = Runtime.instance().metricMeter;
    meter
      .createCounter(LEDGER_METRIC_NAMES.writeFailures, '1', 'approvals-ledger writes that failed (they are retried)')
      .add(1);
    ledgerMetrics.up(false);
  },
  up(reached: boolean): void {
    Runtime.instance()
      .metricMeter.createGauge(
        LEDGER_METRIC_NAMES.up,
        'int',
        '1',
        '1 while the approvals ledger can be reached, else 0',
      )
      .set(reached ? 1 : 0);
  },
};

/** Counting never fails a write (its retry would only be skipped by the store). */
function counted(count: () => void): void {
  try {
    count();
  } catch {
    // no metrics runtime (a worker in a test without one): nothing to count in
  }
}

/** Asks the store whether it can be reached (readiness), and says so in the gauge. Throws with the store's reason. */
export async function pingLedger(ledger: LedgerStore): Promise<void> {
  try {
    await ledger.ping();
  } catch (err) {
    ledgerMetrics.up(false);
    throw err;
  }
  ledgerMetrics.up(true);
}

/**
 * A run's write carried by an activity it starts anyway (runTool, modelTurn: ledgerWriter.ts ride), written by that
 * attempt: idempotent, so a retried attempt writes nothing twice. It never fails the attempt: false tells the run,
 * which sends the write with recordLedger (this worker keeps no ledger, or the store cannot be reached now).
 */
export async function writeCarried(
  ledger: LedgerStore | undefined,
  write: LedgerWrite | undefined,
): Promise<LedgerWriteResult | undefined> {
  if (!write || !ledger) return undefined;
  let result: LedgerWriteResult;
  try {
    result = await ledger.write(write);
  } catch (err) {
    counted(ledgerMetrics.failed);
    log.warn('ledger write failed; the run sends it again', { workflowId: write.workflowId, error: String(err) });
    return undefined;
  }
  counted(ledgerMetrics.wrote);
  return result;
}

/** Whether this attempt is a local activity's (a run's last write: its result says what it wrote). */
function isLocal(): boolean {
  try {
    return Context.current().info.isLocal;
  } catch {
    return false; // called outside an activity (unit tests)
  }
}

export function createLedgerActivities(ledger: LedgerStore | undefined) {
  return {
    /** Writes a run's new audit entries, reviews and pending calls; what the store has already is skipped. */
    async recordLedger(write: LedgerWrite): Promise<LedgerWriteResult> {
      // A run is told to write only by a worker that keeps a ledger (its snapshot says so): one that does not is
      // configured unlike its task queue's others. Retried (with the activity's backoff): one of them takes it.
      if (!ledger)
        throw new Error(
          `this worker keeps no approvals ledger (COUNTERSIGN_LEDGER_URL=off), but run ${write.workflowId} was started by one that does: give every worker of task queue ${write.taskQueue} the same COUNTERSIGN_LEDGER_URL`,
        );
      let result: LedgerWriteResult;
      try {
        result = await ledger.write(write);
      } catch (err) {
        counted(ledgerMetrics.failed);
        throw err; // retried: nothing is lost while the store is down
      }
      counted(ledgerMetrics.wrote);
      return isLocal() ? { ...result, handed: write } : result;
    },

    /** Whether this worker keeps a ledger (the reviews workflow asks once per run: it has no agent snapshot). */
    async ledgerKept(): Promise<boolean> {
      return ledger !== undefined;
    },
  };
}
