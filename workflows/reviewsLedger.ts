// The reviews workflow's side of the approvals ledger: each review of an audit-only call is handed to the
// recordLedger activity, numbered in the workflow's own chain (seq carried across continue-as-new), so the ledger
// keeps every review, not only the newest MAX_KEPT_REVIEWS the workflow holds. Like a run's writer
// (ledgerWriter.ts): one write in flight, what arrives meanwhile goes with the next (ledgerSender.ts), and a review
// the ledger has not confirmed is carried to the continuation and sent again (the store skips what it has). The
// workflow has no agent snapshot to say whether its worker keeps a ledger: it asks once per run (ledgerKept, a local
// activity).
import { condition, patched, workflowInfo } from '@temporalio/workflow';
import type { LedgerReview } from '../contract/ledgerRecords';
import type { Review, ReviewsLedgerCarry } from '../contract/reviewMessages';
import { ledgerKept, ledgerOptions, recordLedger } from './activityProxies';
import { LedgerSender } from './ledgerSender';
import { LEDGER_DRAIN_LIMIT, MAX_ENTRIES_PER_WRITE } from './ledgerWriter';
import { PATCHES } from './patches';

/** Logged for a failure the activity does not retry (the next review tries again). */
const FAILED = 'ledger write of reviews failed';

export class ReviewsLedger {
  private seq: number;
  private readonly unconfirmed: LedgerReview[];
  private enabled: boolean | undefined;
  /** Whether this run's worker keeps a ledger (asked once, at the first review). */
  private kept: boolean | undefined;
  private readonly sender = new LedgerSender(() => this.feed());

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
    if (!this.sender.inFlight) return Promise.resolve(true);
    return condition(() => !this.sender.inFlight, LEDGER_DRAIN_LIMIT);
  }

  private feed(): void {
    if (this.sender.inFlight || !this.unconfirmed.length) return;
    if (this.kept === undefined) {
      this.sender.send(ledgerKept, (kept) => (this.kept = kept), FAILED);
      return;
    }
    if (!this.kept) {
      this.unconfirmed.length = 0; // COUNTERSIGN_LEDGER_URL=off: nothing to keep them for
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
    this.sender.send(
      () =>
        recordLedger.executeWithOptions({ ...ledgerOptions, summary: `ledger: ${reviews.length} reviews` }, [write]),
      () => this.unconfirmed.splice(0, reviews.length),
      FAILED,
    );
  }
}
