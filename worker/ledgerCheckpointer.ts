// The worker's periodic ledger checkpoint (COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL, off by default): `countersign ledger
// checkpoint` on a timer, the next timed from the end of the last. Several workers may each take one: the ledger
// places records under one lock, so each checkpoint is of a tree the others' extend; a witness keeps them all.
import { takeCheckpoint } from '../storage/ledger/ledgerCheckpoints';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import type { CountersignConfig } from '../temporal.config';

const ENDED = ['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED', 'FAILED'];

/** Starts checkpointing while `worker` runs; undefined when the setting is off or the worker keeps no ledger. */
export function startLedgerCheckpoints(
  settings: Pick<CountersignConfig, 'ledgerCheckpoints'>,
  ledger: LedgerStore | undefined,
  worker: { getState(): string },
  log: (line: string) => void = console.log,
): { stop(): void } | undefined {
  const every = settings.ledgerCheckpoints;
  if (!every || !ledger) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      if (ENDED.includes(worker.getState())) return;
      try {
        const taken = await takeCheckpoint(ledger, { witness: every.witness, keyFile: every.keyFile });
        if (!taken.unchanged)
          log(
            `[countersign] ledger checkpoint of size ${taken.treeSize} (${taken.records} records) kept at ${taken.where}`,
          );
      } catch (err) {
        // The next one tries again; a witness down for a while leaves no gap (each lists the leaves since the last kept).
        log(`[countersign] ledger checkpoint failed: ${(err as Error).message.split('\n')[0]}`);
      }
      next();
    }, every.intervalMs).unref(); // never what keeps the process alive
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
