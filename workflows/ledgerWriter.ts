// The run's side of the approvals ledger: what its audit added, and which calls wait now, handed to the recordLedger
// activity (activities/ledgerActivity.ts), which writes it once (idempotent by workflow id, chain and seq).
//
// Fire and forget, like notifications: a decision never waits for the ledger. One write is in flight per run; what
// the run adds meanwhile goes with the next one (coalesced, ledgerSender.ts). The cursor is the last audit seq the
// ledger confirmed; it is carried across continue-as-new, so a continuation sends again only what was not confirmed
// (the store skips what it has). Taken only by runs whose agent snapshot says the worker keeps a ledger (a new field:
// runs recorded before never take this path) and that have change `ledger` (patches.ts).
import { CancellationScope, condition, log, workflowInfo } from '@temporalio/workflow';
import type { LedgerEntry, LedgerWrite } from '../contract/ledgerRecords';
import type { AgentRunState } from '../core/run/agentRunState';
import { kept, ledgerEntryOf, ledgerPendingOf, pendingKey } from '../core/approvals/ledgerEntries';
import { ledgerOptions, recordLedger } from './activityProxies';
import { LedgerSender } from './ledgerSender';
import { hasChange } from './patches';

/**
 * How long a run that ends waits for its last ledger writes. The activity retries with its backoff capped at a
 * minute, so two minutes see at least one more attempt after any outage shorter than a minute (a database restart),
 * while a ledger that stays down holds the run's end no longer than that. What did not land then is written by
 * `countersign ledger backfill` from the run's history.
 */
export const LEDGER_DRAIN_LIMIT = '2 minutes';

/** Entries per write: a run that decided thousands of calls while the ledger was down catches up in several writes. */
export const MAX_ENTRIES_PER_WRITE = 500;

export class LedgerWriter {
  /** The last audit seq the ledger confirmed (entries up to it are written). */
  private confirmed: number;
  /** The pending calls the ledger shows (their key); undefined: not known (a continued run sends them again). */
  private shownPending: string | undefined;
  private readonly sender = new LedgerSender(() => this.feed());
  private closing = false;
  private closeConfirmed = false;
  private enabled: boolean | undefined;

  constructor(
    private readonly state: AgentRunState,
    carried?: { ledgerSeq?: number },
  ) {
    this.confirmed = carried?.ledgerSeq ?? 0;
    this.shownPending = carried ? undefined : '';
  }

  /** Whether the run keeps a ledger: its snapshot says the worker that described it has one (asked once it has one). */
  get on(): boolean {
    if (this.enabled === undefined) {
      const agent = this.state.agent;
      if (!agent) return false;
      this.enabled = agent.ledger === true && hasChange(agent, 'ledger');
    }
    return this.enabled;
  }

  /** What the continuation starts from (nothing for runs without a ledger: their carry stays as it was). */
  carry(): { ledgerSeq?: number } {
    return this.on ? { ledgerSeq: this.confirmed } : {};
  }

  /** The run changed (Publisher.flush): writes what is new, unless a write is in flight (it follows that one). */
  feed(): void {
    if (!this.on || this.sender.inFlight) return;
    const book = this.state.book;
    const after = book.auditAfter(this.confirmed);
    const entries: LedgerEntry[] = [];
    // Up to the audit's last seq, unless the batch is full (refusals past the audit's cap left no entry at all).
    let upTo = book.state.auditSeq ?? 0;
    for (const e of after) {
      if (!kept(e)) continue;
      if (entries.length === MAX_ENTRIES_PER_WRITE) {
        upTo = e.seq! - 1;
        break;
      }
      entries.push(ledgerEntryOf(e));
    }
    const pending = book.pendingApprovals().map(ledgerPendingOf);
    const key = pendingKey(pending);
    const sendPending = key !== this.shownPending;
    // `closed` cancels what the ledger still shows pending: not needed by a run that never showed any.
    const sendClosed = this.closing && !this.closeConfirmed && (this.shownPending !== '' || sendPending);
    if (!entries.length && !sendPending && !sendClosed) {
      this.confirmed = upTo; // refusals only: nothing to write
      if (this.closing) this.closeConfirmed = true;
      return;
    }
    const info = workflowInfo();
    const write: LedgerWrite = {
      workflowId: info.workflowId,
      chainId: info.firstExecutionRunId,
      taskQueue: info.taskQueue,
      agent: this.state.agentRef().name,
      ...(entries.length ? { entries } : {}),
      ...(sendPending ? { pending } : {}),
      ...(sendClosed && upTo === book.state.auditSeq ? { closed: true as const } : {}),
    };
    this.send(write, upTo, sendPending ? key : this.shownPending);
  }

  private send(write: LedgerWrite, upTo: number, shown: string | undefined): void {
    const summary = `ledger: ${write.entries?.length ?? 0} entries${write.closed ? ', closed' : ''}`;
    this.sender.send(
      // Not cancelled with the run (a deadline or a cancellation): its last entries are the ones that say so.
      () =>
        CancellationScope.nonCancellable(() => recordLedger.executeWithOptions({ ...ledgerOptions, summary }, [write])),
      () => {
        this.confirmed = upTo;
        this.shownPending = shown;
        if (write.closed) this.closeConfirmed = true;
      },
      'ledger write failed',
      { upTo },
    );
  }

  /**
   * The run ends: its last entries and `closed` are written, and the run waits for that (at most
   * LEDGER_DRAIN_LIMIT). Resolves true once confirmed; false when the limit passed.
   */
  close(): Promise<boolean> {
    if (!this.on) return Promise.resolve(true);
    this.closing = true;
    this.feed();
    if (this.drained()) return Promise.resolve(true);
    return condition(() => this.drained(), LEDGER_DRAIN_LIMIT).then((done) => {
      if (!done)
        log.warn(
          `the ledger did not confirm this run's last entries within ${LEDGER_DRAIN_LIMIT}; \`countersign ledger backfill\` writes them from its history`,
          { confirmedSeq: this.confirmed },
        );
      return done;
    });
  }

  private drained(): boolean {
    return !this.sender.inFlight && this.closeConfirmed && this.confirmed >= (this.state.book.state.auditSeq ?? 0);
  }
}
