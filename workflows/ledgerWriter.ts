// The run's side of the approvals ledger: what its audit added, and which calls wait now, handed to the recordLedger
// activity (activities/ledgerActivity.ts), which writes it once (idempotent by workflow id, chain and seq).
//
// Fire and forget, like notifications: a decision never waits for the ledger. One write is in flight per run; what
// the run adds meanwhile goes with the next one (coalesced, ledgerSender.ts). The cursor is the last audit seq the
// ledger confirmed; it is carried across continue-as-new, so a continuation sends again only what was not confirmed
// (the store skips what it has). Taken only by runs whose agent snapshot says the worker keeps a ledger (a new field:
// runs recorded before never take this path) and that have change `ledger` (patches.ts).
//
// With change `ledgerRides` a write costs no activity of its own where the run starts one anyway: the approved
// call's runTool or the next modelTurn carries it (ride), and their attempt writes it first. What the run adds while
// its turn's calls are all answered waits for the next model turn; what it adds once it ended, or while a gateway call
// runs (hold), waits for its end, which writes in a local activity of its last workflow task. Otherwise, as before,
// recordLedger: the request record at a pause, and a decision no activity follows.
import { CancellationScope, condition, log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { LedgerEntry, LedgerWrite } from '../contract/ledgerRecords';
import type { AgentRunState } from '../core/run/agentRunState';
import type { AgentActivities } from '../activities/agentActivities';
import { kept, ledgerEntryOf, ledgerPendingOf, pendingKey } from '../core/approvals/ledgerEntries';
import { rootCause } from '../core/run/failures';
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

/** The run's last write (ledgerRides): in its last workflow task, retried as recordLedger is, for LEDGER_DRAIN_LIMIT. */
const { recordLedger: recordLedgerAtEnd } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: ledgerOptions.startToCloseTimeout,
  scheduleToCloseTimeout: LEDGER_DRAIN_LIMIT,
  retry: ledgerOptions.retry,
});

/** A write, and what it confirms once it lands. */
interface Planned {
  write: LedgerWrite;
  upTo: number;
  shown: string | undefined;
  /** How many calls wait now. */
  waiting: number;
}

export class LedgerWriter {
  /** The last audit seq the ledger confirmed (entries up to it are written). */
  private confirmed: number;
  /** The pending calls the ledger shows (their key); undefined: not known (a continued run sends them again). */
  private shownPending: string | undefined;
  private readonly sender = new LedgerSender(() => this.feed());
  private closing = false;
  private closeConfirmed = false;
  private enabled: boolean | undefined;
  private riding: boolean | undefined;
  /** Gateway calls running now (hold): their end writes next. */
  private holding = 0;
  /** Whether a decision wakes its call in this activation (expect): what follows carries what the decision added. */
  private coming: () => boolean = () => false;

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

  /** Whether writes ride the run's own activities (change ledgerRides; asked once the run keeps a ledger). */
  private get rides(): boolean {
    this.riding ??= hasChange(this.state.agent, 'ledgerRides');
    return this.riding;
  }

  /** The run changed (Publisher.flush): writes what is new, unless a write is in flight (it follows that one). */
  feed(): void {
    if (!this.on || this.sender.inFlight) return;
    const planned = this.plan();
    if (planned && !this.waits(planned)) this.send(planned);
  }

  /**
   * Hands what the run would write now to an activity it starts anyway, whose attempt writes it first: `start` gets
   * the write, or nothing (nothing new, a write in flight, a run from before ledgerRides); `wrote` reads from the
   * activity's result whether the store took it. What it did not take is sent by recordLedger once it settles.
   */
  ride<T>(start: (write?: LedgerWrite) => Promise<T>, wrote: (result: T) => boolean): Promise<T> {
    if (!this.on || this.sender.inFlight || !this.rides) return start();
    const planned = this.plan();
    if (!planned) return start();
    const result = start(planned.write);
    this.sender.ride(result.then(wrote), () => this.confirm(planned));
    return result;
  }

  /** While `work` runs (a gateway call: its end follows), what the run adds waits for that end (ledgerRides only). */
  hold<T>(work: Promise<T>): Promise<T> {
    if (!this.on || !this.rides) return work;
    this.holding += 1;
    const release = () => void (this.holding -= 1);
    work.then(release, release);
    return work;
  }

  /**
   * `coming` says whether a decision wakes its call in this activation: a person's decision wakes it at a condition
   * check after the one that published it, so the write waits for what follows (the approved call's runTool, or the
   * next model turn once the rejection answered the turn; if neither, the next check sends it).
   */
  expect(coming: () => boolean): void {
    this.coming = coming;
  }

  /**
   * ledgerRides: a step that writes comes next, so recordLedger waits for it. The run ended (its close writes), a
   * gateway call runs (its end), a decision wakes its call now (expect), or every call of the turn is answered and
   * none waits (the next model turn carries it; else the run ends, continues as new or books a call, which writes).
   */
  private waits(planned: Planned): boolean {
    if (this.closing || !this.rides) return false;
    const s = this.state;
    if (s.finished !== undefined || this.holding > 0 || this.coming()) return true;
    return planned.waiting === 0 && s.turnCalls.length > 0 && s.turnCalls.every((c) => s.outputs.has(c.callId));
  }

  /** What the run would write now; undefined when nothing (refusals only are confirmed at once). */
  private plan(): Planned | undefined {
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
      return undefined;
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
    return { write, upTo, shown: sendPending ? key : this.shownPending, waiting: pending.length };
  }

  private confirm({ write, upTo, shown }: Planned): void {
    this.confirmed = upTo;
    this.shownPending = shown;
    if (write.closed) this.closeConfirmed = true;
  }

  private send(planned: Planned): void {
    const { write, upTo } = planned;
    const summary = `ledger: ${write.entries?.length ?? 0} entries${write.closed ? ', closed' : ''}`;
    this.sender.send(
      // Not cancelled with the run (a deadline or a cancellation): its last entries are the ones that say so.
      () =>
        CancellationScope.nonCancellable(() => recordLedger.executeWithOptions({ ...ledgerOptions, summary }, [write])),
      () => this.confirm(planned),
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
    if (!this.sender.inFlight && this.rides) return this.closeHere();
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

  /** ledgerRides: the last writes in local activities of the run's last workflow task (no timer: they time out). */
  private async closeHere(): Promise<boolean> {
    for (let planned = this.plan(); planned; planned = this.plan()) {
      const summary = `ledger: ${planned.write.entries?.length ?? 0} entries${planned.write.closed ? ', closed' : ''}`;
      try {
        await CancellationScope.nonCancellable(() =>
          recordLedgerAtEnd.executeWithOptions({ summary }, [planned!.write]),
        );
      } catch (err) {
        log.warn(
          `the ledger did not confirm this run's last entries within ${LEDGER_DRAIN_LIMIT}; \`countersign ledger backfill\` writes them from its history`,
          { confirmedSeq: this.confirmed, error: rootCause(err).message },
        );
        return false;
      }
      this.confirm(planned);
    }
    return true;
  }

  private drained(): boolean {
    return !this.sender.inFlight && this.closeConfirmed && this.confirmed >= (this.state.book.state.auditSeq ?? 0);
  }
}
