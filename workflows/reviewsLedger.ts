// The reviews workflow's side of the approvals ledger: each review of an audit-only call is handed to the
// recordLedger activity, numbered in the workflow's own chain (seq carried across continue-as-new), so the ledger
// keeps every review, not only the newest MAX_KEPT_REVIEWS the workflow holds. Like a run's writer
// (ledgerWriter.ts): one write in flight, what arrives meanwhile goes with the next, and a review the ledger has not
// confirmed is carried to the continuation and sent again (the store skips what it has). The workflow has no agent
// snapshot to say whether its worker keeps a ledger: it asks once per run (ledgerKept, a local activity).
import { condition, log, patched, workflowInfo } from '@temporalio/workflow';
import type { LedgerReview } from '../contract/ledgerRecords';
import type { Review, ReviewsLedgerCarry } from '../contract/reviewMessages';
import { rootCause } from '../core/run/failures';
import { ledgerKept, ledgerOptions, recordLedger } from './activityProxies';
import { LEDGER_DRAIN_LIMIT, MAX_ENTRIES_PER_WRITE } from './ledgerWriter';
import { PATCHES } from './patches';

export class ReviewsLedger {
  private seq: number;
  private readonly unconfirmed: LedgerReview[];
  private enabled: boolean | undefined;
  /** Whether this run's worker keeps a ledger (asked once, at the first review). */
  private kept: boolean | undefined;
  private busy = false;

  constructor(carried?: ReviewsLedgerCarry) {
    this.seq = carried?.seq ?? 0;
    this.unconfirmed = [...(carried?.unconfirmed ?? [])];
    if (carried) this.enabled = true; // its predecessor took the change
  }

  /** Whether the workflow writes its reviews to the ledger (patched: reviews workflows recorded before do not). */
  get on(): boolean {
    this.enabled ??= patched(PATCHES.ledger);
    return this.enabled;
  }

  /** A review was recorded (the update's handler): it goes to the ledger with the next write. Returns it. */
  added(review: Review): Review {
    if (!this.on) return review;
    this.unconfirmed.push({ ...review, seq: ++this.seq });
    this.feed();
    return review;
  }

  /** What the continuation starts from (nothing unless the change was taken: the carry stays as it was). */
  carry(): { ledger?: ReviewsLedgerCarry } {
    return this.enabled ? { ledger: { seq: this.seq, unconfirmed: [...this.unconfirmed] } } : {};
  }

  /** Before continuing as new: waits (at most LEDGER_DRAIN_LIMIT) for the write in flight; the rest is carried. */
  settled(): Promise<boolean> {
    if (!this.busy) return Promise.resolve(true);
    return condition(() => !this.busy, LEDGER_DRAIN_LIMIT);
  }

  private feed(): void {
    if (this.busy || !this.unconfirmed.length) return;
    this.busy = true;
    if (this.kept === undefined) {
      ledgerKept().then(
        (kept) => this.done(() => (this.kept = kept)),
        (err) => this.failed(err),
      );
      return;
    }
    if (!this.kept) {
      this.unconfirmed.length = 0; // COUNTERSIGN_LEDGER_URL=off: nothing to keep them for
      this.busy = false;
      return;
    }
    const reviews = this.unconfirmed.slice(0, MAX_ENTRIES_PER_WRITE);
    const info = workflowInfo();
    const write = {
      workflowId: info.workflowId,
      chainId: info.firstExecutionRunId,
      taskQueue: info.taskQueue,
      agent: '', // reviews belong to other runs' calls, whose rows name their agents
      reviews,
    };
    recordLedger.executeWithOptions({ ...ledgerOptions, summary: `ledger: ${reviews.length} reviews` }, [write]).then(
      () => this.done(() => this.unconfirmed.splice(0, reviews.length)),
      (err) => this.failed(err),
    );
  }

  private done(confirm: () => void): void {
    confirm();
    this.busy = false;
    this.feed(); // what arrived meanwhile
  }

  /** Only what the activity does not retry lands here: the next review tries again. */
  private failed(err: unknown): void {
    this.busy = false;
    log.warn('ledger write of reviews failed', { error: rootCause(err).message });
  }
}
