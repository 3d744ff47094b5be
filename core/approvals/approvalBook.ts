// The approval book: the pure state machine of tool calls that wait for a person. It records pending calls,
// validates and applies decisions (first decision wins), keeps sticky always-rules per agent and tool, and
// writes the audit log. No Temporal imports: the workflow wires it to signals, updates, timers and activities,
// and unit tests drive it directly. Its state is plain JSON so it can be queried and carried across runs.
import type { OnTimeout } from '../../contract/approvalPolicy';
import { appendEntry, appendIgnored, entriesAfter } from './auditLog';
import { type BookDecision, type CheckedBatch, type CheckedDecision, checkDecision } from './decisionRules';
import type { NameRule } from '../../contract/approverName';
import type { PlannedAutoDecision } from './plannedCall';
import type { Decision } from '../../contract/messages';
import type { AppliedDecision, AuditEntry, CallOutcome, PendingApproval } from '../../contract/runViews';
import {
  type BookCall,
  type BookState,
  type BookView,
  type Booking,
  type DeepReadonly,
  type RecordedBook,
  type StickyRule,
  asPending,
  ownState,
} from './bookCall';
import { cancel, count, expire, extend, settle } from './callSettling';
import { Failure } from '../../contract/failureTypes';
import { Refusal } from '../refusal';
import { markUncertain } from './uncertainCalls';
import { alwaysRuleKey } from '../../contract/alwaysRuleKey';
import { markStale, type Stale } from './staleCalls';
import { recordOutcome } from './callOutcomes';

// The book's records and views (bookCall.ts), where the book's readers have always found them.
export type { BookCall, BookState, BookView, Booking, DeepReadonly, RecordedBook, StickyRule } from './bookCall';

export class DecisionError extends Refusal {
  override name = 'DecisionError';
  readonly failureType = Failure.DecisionRejected;
}

/** Always-rules hold per agent and tool; for an MCP tool, per agent, server and tool (contract/alwaysRuleKey.ts). */
const ruleKey = (call: Pick<BookCall, 'agentName' | 'toolName' | 'mcpServer'>) =>
  alwaysRuleKey({ agent: call.agentName, tool: call.toolName, mcpServer: call.mcpServer });

export class ApprovalBook {
  private readonly s: BookState;

  /** A new book, or one from a recorded state (a continue-as-new carry): the book keeps its own copy. */
  constructor(state?: RecordedBook) {
    this.s = ownState(state);
  }

  /** Entries after sequence number `after`, oldest first. */
  auditAfter(after: number): Array<Readonly<AuditEntry>> {
    return entriesAfter(this.s.audit, after);
  }

  private log(entry: AuditEntry): void {
    appendEntry(this.s, entry);
  }

  /** The book's state, read-only (carried across continue-as-new as it is). */
  get state(): BookView {
    return this.s;
  }

  call(callId: string): DeepReadonly<BookCall> | undefined {
    return this.own(callId);
  }

  /** Calls still waiting for a person. */
  undecided(): ReadonlyArray<DeepReadonly<BookCall>> {
    return this.waiting();
  }

  /** Whether any call waits for a person (undecided().length > 0, without the list). */
  hasUndecided(): boolean {
    return this.s.calls.some((c) => c.state === 'pending');
  }

  /** The book's own record of a call, to change (never handed out). */
  private own(callId: string): BookCall | undefined {
    return this.s.calls.find((c) => c.callId === callId);
  }

  private waiting(): BookCall[] {
    return this.s.calls.filter((c) => c.state === 'pending');
  }

  pendingApprovals(): PendingApproval[] {
    return this.undecided().map(asPending);
  }

  /** Whether a signed decision's token id was used here already (until its expiry). */
  jtiUsed(jti: string): boolean {
    return this.s.usedJtis?.[jti] !== undefined;
  }

  /**
   * The call's time is up: it is decided by its onTimeout ('reject' unless said otherwise) and audited as
   * `expired` when it does not run ('reject', 'fail'), `timed_out` when it does ('approve'). 'fail' leaves it
   * rejected (it never runs); the workflow then fails the run. No-op once decided.
   */
  expire(callId: string, now: string): OnTimeout | undefined {
    const call = this.own(callId);
    return call?.state === 'pending' ? expire(this.s, call, now) : undefined;
  }

  /**
   * A call that needs approval enters the book. A sticky rule for its tool decides it on the spot, else `auto` does (the
   * tool's onApproval: auto_approved / auto_rejected; a standing grant: granted); otherwise it waits. Rules never decide
   * calls that need a signed decision or a quorum: each such call needs its own people.
   */
  request(call: Booking, now: string, auto?: PlannedAutoDecision): DeepReadonly<BookCall> {
    if (this.call(call.callId)) throw new DecisionError(`call ${call.callId} is already in the book`);
    const entry: BookCall = { ...call, state: 'pending' };
    this.s.calls.push(entry);
    const rule = this.ruleFor(entry);
    if (rule) settle(this.s, entry, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule');
    else if (auto && call.kind === 'approval')
      settle(this.s, entry, auto.decision, auto, now, auto.grantId !== undefined ? 'grant' : 'onApproval');
    return entry;
  }

  private ruleFor(call: BookCall): StickyRule | undefined {
    if (call.kind !== 'approval' || call.signedDecisions || call.quorum) return undefined;
    return this.s.sticky[ruleKey(call)];
  }

  /**
   * The one check of a decision against this book: the decision marked checked (the one place a CheckedDecision is
   * made), or why it cannot apply (names admitted and compared by `names`). Never changes anything.
   */
  admit<D extends BookDecision>(
    d: D,
    batch: ReadonlyArray<Pick<Decision, 'callId'>> = [],
    names?: NameRule,
  ): { problem: string } | { decision: D & CheckedDecision } {
    const problem =
      d.linkId !== undefined && this.jtiUsed(`link:${d.linkId}`)
        ? 'this link was already used: open the approval from the inbox instead'
        : checkDecision(this.own(d.callId), d, batch, names);
    return problem === undefined ? { decision: d as D & CheckedDecision } : { problem };
  }

  /** Moves with every change to a call (each one is audited): a batch checked at this revision still holds. */
  get revision(): number {
    return this.s.auditSeq ?? 0;
  }

  /**
   * Apply a batch atomically. A CheckedBatch applies as it was checked (the book checks nothing twice), unless the
   * book changed since; plain decisions are checked here first. Either way, if any cannot apply nothing changes and a
   * DecisionError says why. Exact decisions are applied first, then sticky rules from this batch decide the remaining
   * pending calls of their tool (an exact decision always beats a sticky one). `names`: as check's.
   */
  decide(
    batch: CheckedBatch | BookDecision[],
    now: string,
    via: 'signal' | 'update',
    names?: NameRule,
  ): AppliedDecision[] {
    const { checked: decisions, at } = Array.isArray(batch) ? this.admitAll(batch, names) : batch;
    if (at !== this.revision)
      throw new DecisionError('the run changed after these decisions were checked: send them again');
    const applied: AppliedDecision[] = [];
    for (const d of decisions) {
      const call = this.own(d.callId)!;
      if (d.signed) this.useJti(d.signed, now);
      if (d.linkId !== undefined)
        this.useJti({ jti: `link:${d.linkId}`, exp: Math.floor(Date.parse(now) / 1000) + 31 * 86_400 }, now); // outlives any link
      if (d.decision === 'extend') {
        applied.push(extend(this.s, call, d, now, via));
        continue;
      }
      if (d.decision === 'approve' && call.quorum && call.quorum.approvedBy.length + 1 < call.quorum.needed) {
        applied.push(count(this.s, call, d, now, via));
        continue;
      }
      applied.push(settle(this.s, call, d.decision, d, now, via));
      if (d.always && call.kind === 'approval' && (d.decision === 'approve' || d.decision === 'reject')) {
        this.s.sticky[ruleKey(call)] = {
          decision: d.decision,
          message: d.message,
          approver: d.approver,
        };
      }
    }
    for (const call of this.waiting()) {
      const rule = this.ruleFor(call);
      if (rule)
        applied.push(
          settle(this.s, call, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule'),
        );
    }
    return applied;
  }

  private admitAll(decisions: BookDecision[], names?: NameRule): CheckedBatch {
    const checked = decisions.map((d) => this.admit(d, decisions, names));
    const refused = checked.find((c) => 'problem' in c);
    if (refused) throw new DecisionError(refused.problem);
    return { checked: checked.map((c) => (c as { decision: CheckedDecision }).decision), at: this.revision };
  }

  /** The run ended (failed, timed out, cancelled) while these calls waited: none of them will ever run. */
  cancelPending(now: string, because: string): ReadonlyArray<DeepReadonly<BookCall>> {
    const cancelled = this.waiting();
    for (const call of cancelled) cancel(this.s, call, now, because);
    return cancelled;
  }

  /** A signed decision's token id counts once; ids of expired tokens are forgotten (those tokens fail on exp anyway). */
  private useJti(signed: { jti: string; exp: number }, now: string): void {
    const nowSeconds = Math.floor(Date.parse(now) / 1000);
    const used = (this.s.usedJtis ??= {});
    for (const [jti, exp] of Object.entries(used)) if (exp <= nowSeconds) delete used[jti];
    used[signed.jti] = signed.exp;
  }

  /** Records that reminder `n` went out for a pending call (carried across continue-as-new). */
  markReminded(callId: string, n: number): void {
    const call = this.own(callId);
    if (call) call.remindersSent = n;
  }

  markEscalated(callId: string): void {
    const call = this.own(callId);
    if (call) call.escalated = true;
  }

  /** Records that the before-expiry reminder went out for this expiry (an extension calls for another). */
  markExpiryReminded(callId: string, expiry: string): void {
    const call = this.own(callId);
    if (call) call.expiryReminderFor = expiry;
  }

  /** An always-rule set from outside a decision (a parent run's, handed down to this one). */
  setRule(key: string, rule: StickyRule): void {
    this.s.sticky[key] = { ...rule };
  }

  /** A call that is not idempotent may or may not have run: it waits for a person again (see uncertainCalls.ts). */
  markUncertain(
    call: Pick<BookCall, 'callId' | 'toolName' | 'arguments' | 'request' | 'assistantSaid'>,
    agentName: string,
    because: string,
    now: string,
  ): DeepReadonly<BookCall> {
    return markUncertain(this.s, call, agentName, because, now);
  }

  /** An approved call's target changed before it ran (see staleCalls.ts): pending again, or rejected with `reject`. */
  markStale(callId: string, stale: Stale, now: string, reject?: string): DeepReadonly<BookCall> {
    return markStale(this.s, this.own(callId)!, stale, now, reject);
  }

  /** An audit-kind call ran without waiting: recorded for later review. */
  recordAudited(call: { callId: string; toolName: string; arguments: string; review?: true }, now: string): void {
    this.log({
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      decision: 'audited',
      requestedAt: now,
      decidedAt: now,
      via: 'rule',
      ...(call.review ? { review: true as const } : {}),
    });
  }

  /** A guardrail's tripwire ended the run (its onTripwire is 'fail'): `toolName` is the guardrail, `message` its outputInfo. */
  recordTripped(entry: Pick<AuditEntry, 'callId' | 'toolName' | 'arguments' | 'message'>, now: string): void {
    this.log({ ...entry, decision: 'tripped', requestedAt: now, decidedAt: now, via: 'run' });
  }

  /** Who asks for this book's calls: named on every audit entry from now on (a gateway's gated call's requester). */
  namesRequester(name: string): void {
    this.s.requestedBy = name;
  }

  /** What the caller of an approved ask-only call reported it did: audited as `outcome` (callOutcomes.ts). */
  recordOutcome(callId: string, outcome: CallOutcome, now: string): Readonly<AuditEntry> {
    return recordOutcome(this.s, this.own(callId)!, outcome, now);
  }

  /** A signal that could not be applied: logged in the audit as ignored, nothing else changes. */
  ignore(
    d: { callId?: unknown; approver?: unknown },
    because: string,
    now: string,
    via: 'signal' | 'update',
  ): Readonly<AuditEntry> {
    const callId =
      typeof d.callId === 'string'
        ? d.callId.slice(0, 256)
        : String(JSON.stringify(d.callId) ?? 'undefined').slice(0, 256);
    const toolName = this.call(callId)?.toolName;
    const approver = typeof d.approver === 'string' ? d.approver : undefined;
    return appendIgnored(this.s, { callId, toolName, approver }, because, now, via);
  }
}
