// The approval book: the pure state machine of tool calls that wait for a person. It records pending calls,
// validates and applies decisions (first decision wins), keeps sticky always-rules per agent and tool, and
// writes the audit log. No Temporal imports: the workflow wires it to signals, updates, timers and activities,
// and unit tests drive it directly. Its state is plain JSON so it can be queried and carried across runs.
import { type OnTimeout, addDuration, durationMs } from '../../contract/approvalPolicy';
import { appendEntry, appendIgnored, entriesAfter } from './auditLog';
import {
  type BookDecision,
  type CallState,
  type CheckedBatch,
  type CheckedDecision,
  type DecisionClaim,
  checkDecision,
} from './decisionRules';
import type { NameRule } from '../../contract/approverName';
import type { AutoDecision } from './plannedCall';
import { expiryText } from './decisionText';
import type { Decision } from '../../contract/messages';
import type { AppliedDecision, AuditEntry, PendingApproval, PendingKind } from '../../contract/runViews';
import { definedFields } from '../definedFields';
import { Failure } from '../../contract/failureTypes';
import { Refusal } from '../refusal';
import { markUncertain, uncertainOutput } from './uncertainCalls';
import { outcomeOf } from '../../contract/decisionWords';
import { alwaysRuleKey } from '../../contract/alwaysRuleKey';
import { markStale, type Stale } from './staleCalls';

export interface BookCall extends Omit<PendingApproval, 'kind'> {
  /** Absent: 'approval'. */
  kind?: PendingKind;
  state: CallState;
  /** For external calls: the text the model gets (the result, or the error). */
  externalOutput?: string;
  /** What the model sees when this call is rejected without a reviewer message (formatter already applied). */
  rejectionText: string;
  /** With expiresAt: the wait it was given ('24h'), what its end does, and the agent's own words for it (else expiryText). */
  timeout?: string;
  onTimeout?: OnTimeout;
  timeoutText?: string;
  /** Notifications while it waits (from its WaitTerms). */
  reminders?: { remindEvery?: string; remindBeforeExpiry?: string; escalateAfter?: string; escalateTo?: string };
  /** Notifications already sent, so a continued-as-new run does not repeat them. */
  remindersSent?: number;
  escalated?: boolean;
  /** The text the model gets for a rejection: the reviewer's message, else rejectionText. */
  rejectionOutput?: string;
  /** Approved with other arguments (JSON, already validated): these run instead. */
  editedArguments?: string;
  /** The tool's maxExtension, and what approvers have added so far (ms). */
  maxExtensionMs?: number;
  extendedMs?: number;
  /** The expiry the before-expiry reminder went out for (an extension calls for another). */
  expiryReminderFor?: string;
}

export interface StickyRule {
  decision: 'approve' | 'reject';
  message?: string;
  approver?: string;
}

export interface BookState {
  calls: BookCall[];
  /** key `${agentName}/${toolName}` */
  sticky: Record<string, StickyRule>;
  audit: AuditEntry[];
  /** The last audit sequence number handed out: entries are read in pages after a `seq` (ignored ones get trimmed). */
  auditSeq?: number;
  /** Token ids of signed decisions applied here, with their expiry (seconds): a token counts once. Expired ones are dropped. */
  usedJtis?: Record<string, number>;
}

/** What a waiting call shows readers (copies: the book's state stays its own). */
function asPending({
  callId,
  kind,
  fields,
  toolName,
  arguments: args,
  agentName,
  requestedAt,
  expiresAt,
  approvers,
  mcpServer,
  quorum,
  signedDecisions,
  excludedApprover,
  uncertainBecause,
  preview,
  request,
  assistantSaid,
  fingerprint,
  stale,
}: BookCall): PendingApproval {
  const optional = {
    fields,
    expiresAt,
    approvers,
    mcpServer,
    signedDecisions,
    excludedApprover,
    uncertainBecause,
    preview,
    request,
    assistantSaid,
    fingerprint,
    stale,
    quorum: quorum && { needed: quorum.needed, approvedBy: [...quorum.approvedBy] },
  };
  return {
    callId,
    kind: kind ?? 'approval',
    toolName,
    arguments: args,
    agentName,
    requestedAt,
    ...definedFields(optional),
  };
}

export class DecisionError extends Refusal {
  override name = 'DecisionError';
  readonly failureType = Failure.DecisionRejected;
}

/** Always-rules hold per agent and tool; for an MCP tool, per agent, server and tool (contract/alwaysRuleKey.ts). */
const ruleKey = (call: Pick<BookCall, 'agentName' | 'toolName' | 'mcpServer'>) =>
  alwaysRuleKey({ agent: call.agentName, tool: call.toolName, mcpServer: call.mcpServer });

export class ApprovalBook {
  private readonly s: BookState;

  constructor(state?: BookState) {
    this.s = state ?? { calls: [], sticky: {}, audit: [], auditSeq: 0 };
  }

  /** Entries after sequence number `after`, oldest first. */
  auditAfter(after: number): AuditEntry[] {
    return entriesAfter(this.s.audit, after);
  }

  private log(entry: AuditEntry): void {
    appendEntry(this.s, entry);
  }

  get state(): BookState {
    return this.s;
  }

  call(callId: string): BookCall | undefined {
    return this.s.calls.find((c) => c.callId === callId);
  }

  /** Calls still waiting for a person. */
  undecided(): BookCall[] {
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
    const call = this.call(callId);
    if (!call || call.state !== 'pending') return undefined;
    const action = call.onTimeout ?? 'reject';
    call.state = action === 'approve' ? 'approved' : 'rejected';
    if (call.state === 'rejected')
      call.rejectionOutput =
        call.timeoutText ??
        (call.timeout
          ? expiryText({ kind: call.kind, timeout: call.timeout, extendedMs: call.extendedMs })
          : call.rejectionText);
    this.log({
      ...this.about(call),
      decision: action === 'approve' ? 'timed_out' : 'expired',
      onTimeout: action,
      requestedAt: call.requestedAt,
      decidedAt: now,
      via: 'timer',
    });
    return action;
  }

  /**
   * A call that needs approval enters the book. A sticky rule for its tool decides it on the spot, else `auto` does (the
   * tool's onApproval: auto_approved / auto_rejected; a standing grant: granted); otherwise it waits. Rules never decide
   * calls that need a signed decision or a quorum: each such call needs its own people.
   */
  request(call: Omit<BookCall, 'state' | 'rejectionOutput'>, now: string, auto?: AutoDecision): BookCall {
    if (this.call(call.callId)) throw new DecisionError(`call ${call.callId} is already in the book`);
    const entry: BookCall = { ...call, state: 'pending' };
    this.s.calls.push(entry);
    const rule = this.ruleFor(entry);
    if (rule) this.settle(entry, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule');
    else if (auto && (call.kind ?? 'approval') === 'approval')
      this.settle(entry, auto.decision, auto, now, auto.grantId !== undefined ? 'grant' : 'onApproval');
    return entry;
  }

  private ruleFor(call: BookCall): StickyRule | undefined {
    if ((call.kind ?? 'approval') !== 'approval' || call.signedDecisions || call.quorum) return undefined;
    return this.s.sticky[ruleKey(call)];
  }

  /** Why this decision cannot be applied, or undefined if it can (names admitted and compared by `names`). Never changes anything. */
  check(
    d: DecisionClaim & { linkId?: string },
    batch: ReadonlyArray<Pick<Decision, 'callId'>> = [],
    names?: NameRule,
  ): string | undefined {
    if (d.linkId !== undefined && this.jtiUsed(`link:${d.linkId}`))
      return 'this link was already used: open the approval from the inbox instead';
    return checkDecision(this.call(d.callId), d, batch, names);
  }

  /** `check`'s answer as a type: the decision marked checked (the one place a CheckedDecision is made), or why not. */
  admit<D extends BookDecision>(
    d: D,
    batch: ReadonlyArray<Pick<Decision, 'callId'>> = [],
    names?: NameRule,
  ): { problem: string } | { decision: D & CheckedDecision } {
    const problem = this.check(d, batch, names);
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
      const call = this.call(d.callId)!;
      if (d.signed) this.useJti(d.signed, now);
      if (d.linkId !== undefined)
        this.useJti({ jti: `link:${d.linkId}`, exp: Math.floor(Date.parse(now) / 1000) + 31 * 86_400 }, now); // outlives any link
      if (d.decision === 'extend') {
        applied.push(this.extend(call, d, now, via));
        continue;
      }
      if (d.decision === 'approve' && call.quorum && call.quorum.approvedBy.length + 1 < call.quorum.needed) {
        applied.push(this.count(call, d, now, via));
        continue;
      }
      applied.push(this.settle(call, d.decision, d, now, via));
      if (
        d.always &&
        (call.kind ?? 'approval') === 'approval' &&
        (d.decision === 'approve' || d.decision === 'reject')
      ) {
        this.s.sticky[ruleKey(call)] = {
          decision: d.decision,
          message: d.message,
          approver: d.approver,
        };
      }
    }
    for (const call of this.undecided()) {
      const rule = this.ruleFor(call);
      if (rule)
        applied.push(this.settle(call, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule'));
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
  cancelPending(now: string, because: string): BookCall[] {
    const cancelled = this.undecided();
    for (const call of cancelled) {
      call.state = 'cancelled';
      this.log({
        ...this.about(call),
        decision: 'cancelled',
        reason: because.slice(0, 500),
        requestedAt: call.requestedAt,
        decidedAt: now,
        via: 'run',
      });
    }
    return cancelled;
  }

  private about(call: BookCall): Pick<AuditEntry, 'callId' | 'toolName' | 'arguments' | 'agentName'> {
    return { callId: call.callId, toolName: call.toolName, arguments: call.arguments, agentName: call.agentName };
  }

  private signer(d: { signed?: BookDecision['signed'] }): Partial<AuditEntry> {
    return d.signed ? { verified: true, keyId: d.signed.kid, jti: d.signed.jti } : {};
  }

  /** One approval of a call that needs more: recorded, and the call waits on. */
  private count(call: BookCall, d: BookDecision, now: string, via: 'signal' | 'update'): AppliedDecision {
    const quorum = call.quorum!;
    quorum.approvedBy.push(d.approver!);
    const snapshot = { needed: quorum.needed, approvedBy: [...quorum.approvedBy] };
    this.log({
      ...this.about(call),
      decision: 'approval_counted',
      approver: d.approver,
      ...(d.reason ? { reason: d.reason } : {}),
      ...this.signer(d),
      quorum: snapshot,
      requestedAt: call.requestedAt,
      decidedAt: now,
      via,
    });
    return {
      callId: call.callId,
      toolName: call.toolName,
      outcome: 'approval_counted',
      approver: d.approver!,
      ...(d.signed ? { verified: true as const } : {}),
      quorum: snapshot,
    };
  }

  /** More time for a pending call (checked against its maxExtension already). */
  private extend(call: BookCall, d: BookDecision, now: string, via: 'signal' | 'update'): AppliedDecision {
    call.expiresAt = addDuration(call.expiresAt!, d.by!);
    call.extendedMs = (call.extendedMs ?? 0) + durationMs(d.by!);
    this.log({
      ...this.about(call),
      decision: 'extended',
      ...(d.approver ? { approver: d.approver } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
      extendedBy: d.by!,
      expiresAt: call.expiresAt,
      requestedAt: call.requestedAt,
      decidedAt: now,
      via,
    });
    return {
      callId: call.callId,
      toolName: call.toolName,
      outcome: 'extended',
      ...(d.approver ? { approver: d.approver } : {}),
      expiresAt: call.expiresAt,
    };
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
    const call = this.call(callId);
    if (call) call.remindersSent = n;
  }

  markEscalated(callId: string): void {
    const call = this.call(callId);
    if (call) call.escalated = true;
  }

  /** A call that is not idempotent may or may not have run: it waits for a person again (see uncertainCalls.ts). */
  markUncertain(
    call: Pick<BookCall, 'callId' | 'toolName' | 'arguments' | 'request' | 'assistantSaid'>,
    agentName: string,
    because: string,
    now: string,
  ): BookCall {
    return markUncertain(this.s, call, agentName, because, now);
  }

  /** An approved call's target changed before it ran (see staleCalls.ts): pending again, or rejected with `reject`. */
  markStale(callId: string, stale: Stale, now: string, reject?: string): BookCall {
    return markStale(this.s, this.call(callId)!, stale, now, reject);
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

  /** A signal that could not be applied: logged in the audit as ignored, nothing else changes. */
  ignore(
    d: { callId?: unknown; approver?: unknown },
    because: string,
    now: string,
    via: 'signal' | 'update',
  ): AuditEntry {
    const callId =
      typeof d.callId === 'string'
        ? d.callId.slice(0, 256)
        : String(JSON.stringify(d.callId) ?? 'undefined').slice(0, 256);
    const call = this.call(callId);
    return appendIgnored(
      this.s,
      {
        callId,
        ...(call ? { toolName: call.toolName } : {}),
        ...(typeof d.approver === 'string' ? { approver: d.approver } : {}),
      },
      because,
      now,
      via,
    );
  }

  private settle(
    call: BookCall,
    decision: Decision['decision'],
    d: {
      message?: string;
      reason?: string;
      approver?: string;
      editedArguments?: unknown;
      result?: unknown;
      error?: string;
      signed?: BookDecision['signed'];
      grantId?: string;
      grantedBy?: string;
    },
    now: string,
    via: 'signal' | 'update' | 'rule' | 'onApproval' | 'grant',
  ): AppliedDecision {
    if (via === 'grant')
      d = { reason: d.reason, approver: d.grantedBy, grantId: d.grantId, ...(d.signed ? { signed: d.signed } : {}) }; // a grant's author (its signer) approved it
    const by = via === 'grant' ? 'grant' : via === 'rule' || via === 'onApproval' ? 'code' : 'person';
    const outcome = outcomeOf(decision, { by, uncertain: call.kind === 'uncertain', withError: d.error !== undefined });
    const answer = outcome === 'done' || outcome === 'failed' ? outcome : undefined;
    call.state = decision === 'reject' ? 'rejected' : decision === 'result' || answer ? 'resolved' : 'approved';
    if (decision === 'reject') call.rejectionOutput = d.message || call.rejectionText;
    // The workflow validates edits and input values and hands them over as JSON text; the book only records them.
    if ((decision === 'approve' || decision === 'input') && typeof d.editedArguments === 'string')
      call.editedArguments = d.editedArguments;
    if (answer) call.externalOutput = uncertainOutput(call, answer, d);
    else if (decision === 'result')
      call.externalOutput =
        d.error !== undefined
          ? `The external execution failed: ${d.error}`
          : typeof d.result === 'string'
            ? d.result
            : JSON.stringify(d.result);
    if (outcome === 'approved' && call.quorum && d.approver) call.quorum.approvedBy.push(d.approver);
    const quorum =
      call.quorum && outcome === 'approved'
        ? { quorum: { needed: call.quorum.needed, approvedBy: [...call.quorum.approvedBy] } }
        : {};
    this.log({
      ...this.about(call),
      decision: outcome,
      ...(d.approver ? { approver: d.approver } : {}),
      ...this.signer(d),
      ...quorum,
      ...(d.reason ? { reason: d.reason } : {}),
      ...(d.message ? { message: d.message } : {}),
      ...(call.editedArguments ? { editedArguments: call.editedArguments } : {}),
      ...(d.grantId !== undefined ? { grantId: d.grantId } : {}),
      requestedAt: call.requestedAt,
      decidedAt: now,
      via,
    });
    return {
      callId: call.callId,
      toolName: call.toolName,
      outcome,
      ...(d.approver ? { approver: d.approver } : {}),
      ...(d.signed ? { verified: true as const } : {}),
      ...quorum,
    };
  }
}
