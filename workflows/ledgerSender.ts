// One ledger write in flight per workflow; what arrives meanwhile goes with the next. Shared by a run's writer
// (ledgerWriter.ts) and the reviews workflow's (reviewsLedger.ts): each decides what to send and what a landed write
// confirms, this keeps the rule. Workflow code: it adds no command of its own, and its owner's callbacks run in the
// same microtasks as when each owner chained its own promise (what the replay corpus recorded).
import { log } from '@temporalio/workflow';
import { rootCause } from '../core/run/failures';

export class LedgerSender {
  private busy = false;

  /** `next` is the owner's feed: called once a write landed, it sends what arrived meanwhile. */
  constructor(private readonly next: () => void) {}

  /** A write is in flight: what arrives now goes with the next one. */
  get inFlight(): boolean {
    return this.busy;
  }

  /**
   * Starts `write` (the owner checked `inFlight`). Once it lands, `landed` confirms what it carried and the owner
   * feeds again; a failure (only one the activity does not retry) is logged, and the owner's next change tries again.
   */
  send<T>(write: () => Promise<T>, landed: (value: T) => void, failed: string, fields?: Record<string, unknown>): void {
    this.busy = true;
    write()
      .then(
        (value) => {
          landed(value);
          this.busy = false;
          this.next();
        },
        (err) => {
          this.busy = false;
          log.warn(failed, { ...fields, error: rootCause(err).message });
        },
      )
      .catch(() => undefined);
  }

  /**
   * A write that rides an activity the run starts anyway (`carried` says whether the attempt wrote it). In flight
   * the same way; once it settles, `landed` confirms what it carried if it was written, and the owner feeds again:
   * what it did not write goes by itself at once (the store skips anything a failed attempt wrote).
   */
  ride(carried: Promise<boolean>, landed: () => void): void {
    this.busy = true;
    carried
      .then(
        (wrote) => wrote,
        () => false,
      )
      .then((wrote) => {
        if (wrote) landed();
        this.busy = false;
        this.next();
      })
      .catch(() => undefined);
  }
}
