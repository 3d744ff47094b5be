// The approval book: the pure state machine of tool calls that wait for a person. It records pending calls,
// validates and applies decisions (first decision wins), keeps sticky always-rules per agent and tool, and
// writes the audit log. No Temporal imports: the workflow wires it to signals, updates, timers and activities,
// and unit tests drive it directly. Its state is plain JSON so it can be queried and carried across runs.
import type { OnTimeout } from './approvalPolicy';
import type { AutoDecision } from './plannedCall';
import type { AppliedDecision, AuditEntry, Decision, PendingApproval, PendingKind } from '../workflows/messages';

/** `resolved`: an external call whose result arrived (nothing runs on the worker). */
export type CallState = 'pending' | 'approved' | 'rejected' | 'resolved';

export interface BookCall extends Omit<PendingApproval, 'kind'> {
  /** Default 'approval' (books carried from runs before kinds existed have none). */
  kind?: PendingKind;
  state: CallState;
  /** For external calls: the text the model gets (the result, or the error). */
  externalOutput?: string;
  /** What the model sees when this call is rejected without a reviewer message (formatter already applied). */
  rejectionText: string;
  /** With expiresAt: what a timeout does, and what the model then sees. */
  onTimeout?: OnTimeout;
  timeoutText?: string;
  /** Notifications already sent, so a continued-as-new run does not repeat them. */
  remindersSent?: number;
  escalated?: boolean;
  /** The text the model gets for a rejection: the reviewer's message, else rejectionText. */
  rejectionOutput?: string;
  /** Approved with other arguments (JSON, already validated): these run instead. */
  editedArguments?: string;
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
}

/** Ignored entries kept in the audit log; older ones are dropped so hostile signal floods cannot grow history. */
export const MAX_IGNORED_AUDIT_ENTRIES = 100;

export class DecisionError extends Error {
  override name = 'DecisionError';
}

/** Always-rules hold per agent and tool; for an MCP tool, per agent, server and tool. */
const ruleKey = (agentName: string, toolName: string, mcpServer?: string) => (mcpServer ? `${agentName}/mcp:${mcpServer}/${toolName}` : `${agentName}/${toolName}`);

/** What a decision claims: which call, what decision, who. */
export type DecisionClaim = Pick<Decision, 'callId' | 'approver'> & { decision?: Decision['decision'] };

/**
 * Why this decision cannot be applied to this call (undefined: it can). Shared by the book and by a parent run
 * that checks a decision for a sub-run's call before forwarding it.
 */
export function checkDecision(
  call: (Omit<PendingApproval, 'kind'> & { kind?: PendingKind; state?: CallState }) | undefined,
  d: DecisionClaim,
  batch: ReadonlyArray<Pick<Decision, 'callId'>> = [],
): string | undefined {
  if (!call) return `unknown call id ${d.callId}: it is not a pending approval of this run`;
  if (call.state !== undefined && call.state !== 'pending') return `call ${d.callId} (${call.toolName}) is already decided: ${call.state}`;
  if (batch.filter((b) => b.callId === d.callId).length > 1) return `call ${d.callId} appears twice in one decide request`;
  const kind = call.kind ?? 'approval';
  const fits = { approval: ['approve', 'reject'], input: ['input', 'reject'], external: ['result', 'reject'] }[kind];
  if (d.decision && !fits.includes(d.decision)) {
    const hint = { approval: 'approve or reject it', input: `send "input" with values for ${(call.fields ?? []).join(', ')} (or reject it)`, external: 'send "result" with its result or error (or reject it)' }[kind];
    return `call ${d.callId} (${call.toolName}) waits for ${kind === 'approval' ? 'approval' : kind === 'input' ? 'input' : 'an external result'}, not "${d.decision}": ${hint}`;
  }
  if (call.approvers && !(d.approver && call.approvers.includes(d.approver)))
    return `approver ${d.approver ? `"${d.approver}"` : '(none given)'} may not decide ${call.toolName} (call ${d.callId}); allowed: ${call.approvers.join(', ')}`;
  return undefined;
}

export class ApprovalBook {
  private readonly s: BookState;

  constructor(state?: BookState) {
    this.s = state ?? { calls: [], sticky: {}, audit: [], auditSeq: 0 };
    // Books carried from runs before audit pages existed: number their entries in order.
    if (this.s.auditSeq === undefined) {
      this.s.auditSeq = 0;
      for (const entry of this.s.audit) entry.seq = ++this.s.auditSeq;
    }
  }

  /** Entries after sequence number `after`, oldest first. */
  auditAfter(after: number): AuditEntry[] {
    const from = this.s.audit.findIndex((a) => (a.seq ?? 0) > after);
    return from < 0 ? [] : this.s.audit.slice(from);
  }

  private log(entry: AuditEntry): void {
    entry.seq = ++this.s.auditSeq!;
    this.s.audit.push(entry);
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
    return this.undecided().map(({ callId, kind, fields, toolName, arguments: args, agentName, requestedAt, expiresAt, approvers, mcpServer }) => ({
      callId,
      kind: kind ?? 'approval',
      ...(fields ? { fields } : {}),
      toolName,
      arguments: args,
      agentName,
      requestedAt,
      ...(expiresAt ? { expiresAt } : {}),
      ...(approvers ? { approvers } : {}),
      ...(mcpServer ? { mcpServer } : {}),
    }));
  }

  /**
   * The call's time is up: it is decided by its onTimeout policy ('reject' unless said otherwise) and audited as
   * timed_out. 'fail' leaves it rejected (it never runs); the workflow then fails the run. No-op once decided.
   */
  expire(callId: string, now: string): OnTimeout | undefined {
    const call = this.call(callId);
    if (!call || call.state !== 'pending') return undefined;
    const action = call.onTimeout ?? 'reject';
    call.state = action === 'approve' ? 'approved' : 'rejected';
    if (call.state === 'rejected') call.rejectionOutput = call.timeoutText ?? call.rejectionText;
    this.log({
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      decision: 'timed_out',
      onTimeout: action,
      requestedAt: call.requestedAt,
      decidedAt: now,
      via: 'timer',
    });
    return action;
  }

  /**
   * A call that needs approval enters the book. A sticky rule for its tool decides it on the spot, else the tool's
   * onApproval decision (`auto`) does (audited as auto_approved / auto_rejected); otherwise it waits.
   */
  request(call: Omit<BookCall, 'state' | 'rejectionOutput'>, now: string, auto?: AutoDecision): BookCall {
    if (this.call(call.callId)) throw new DecisionError(`call ${call.callId} is already in the book`);
    const entry: BookCall = { ...call, state: 'pending' };
    this.s.calls.push(entry);
    const rule = (call.kind ?? 'approval') === 'approval' ? this.s.sticky[ruleKey(call.agentName, call.toolName, call.mcpServer)] : undefined;
    if (rule) this.settle(entry, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule');
    else if (auto && (call.kind ?? 'approval') === 'approval') this.settle(entry, auto.decision, auto, now, 'onApproval');
    return entry;
  }

  /** Why this decision cannot be applied, or undefined if it can. Never changes anything. */
  check(d: DecisionClaim, batch: ReadonlyArray<Pick<Decision, 'callId'>> = []): string | undefined {
    return checkDecision(this.call(d.callId), d, batch);
  }

  /**
   * Apply a batch atomically: every decision is checked first; if any fails, nothing changes and a
   * DecisionError says why. Exact decisions are applied first, then sticky rules from this batch decide
   * the remaining pending calls of their tool (an exact decision always beats a sticky one).
   */
  decide(decisions: Decision[], now: string, via: 'signal' | 'update'): AppliedDecision[] {
    for (const d of decisions) {
      const problem = this.check(d, decisions);
      if (problem) throw new DecisionError(problem);
    }
    const applied: AppliedDecision[] = [];
    for (const d of decisions) {
      const call = this.call(d.callId)!;
      applied.push(this.settle(call, d.decision, d, now, via));
      if (d.always && (call.kind ?? 'approval') === 'approval' && (d.decision === 'approve' || d.decision === 'reject')) {
        this.s.sticky[ruleKey(call.agentName, call.toolName, call.mcpServer)] = { decision: d.decision, message: d.message, approver: d.approver };
      }
    }
    for (const call of this.undecided().filter((c) => (c.kind ?? 'approval') === 'approval')) {
      const rule = this.s.sticky[ruleKey(call.agentName, call.toolName, call.mcpServer)];
      if (rule) applied.push(this.settle(call, rule.decision, { message: rule.message, approver: rule.approver }, now, 'rule'));
    }
    return applied;
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

  /** An audit-kind call ran without waiting: recorded for later review. */
  recordAudited(call: { callId: string; toolName: string; arguments: string }, now: string): void {
    this.log({ callId: call.callId, toolName: call.toolName, arguments: call.arguments, decision: 'audited', requestedAt: now, decidedAt: now, via: 'rule' });
  }

  /** A signal that could not be applied: logged in the audit as ignored, nothing else changes. */
  ignore(d: { callId?: unknown; approver?: unknown }, because: string, now: string, via: 'signal' | 'update'): AuditEntry {
    const callId = typeof d.callId === 'string' ? d.callId.slice(0, 256) : String(JSON.stringify(d.callId) ?? 'undefined').slice(0, 256);
    const call = this.call(callId);
    const entry: AuditEntry = {
      callId,
      ...(call ? { toolName: call.toolName } : {}),
      decision: 'ignored',
      ...(typeof d.approver === 'string' ? { approver: d.approver.slice(0, 200) } : {}),
      decidedAt: now,
      via,
      ignoredBecause: because.slice(0, 500),
    };
    this.log(entry);
    const ignored = this.s.audit.filter((a) => a.decision === 'ignored');
    if (ignored.length > MAX_IGNORED_AUDIT_ENTRIES) {
      const oldest = ignored[0]!;
      this.s.audit.splice(this.s.audit.indexOf(oldest), 1);
    }
    return entry;
  }

  private settle(
    call: BookCall,
    decision: Decision['decision'],
    d: { message?: string; reason?: string; approver?: string; editedArguments?: unknown; result?: unknown; error?: string },
    now: string,
    via: 'signal' | 'update' | 'rule' | 'onApproval',
  ): AppliedDecision {
    const auto = via === 'rule' || via === 'onApproval';
    call.state = decision === 'reject' ? 'rejected' : decision === 'result' ? 'resolved' : 'approved';
    if (decision === 'reject') call.rejectionOutput = d.message || call.rejectionText;
    // The workflow validates edits and input values and hands them over as JSON text; the book only records them.
    if ((decision === 'approve' || decision === 'input') && typeof d.editedArguments === 'string') call.editedArguments = d.editedArguments;
    if (decision === 'result')
      call.externalOutput = d.error !== undefined ? `The external execution failed: ${d.error}` : typeof d.result === 'string' ? d.result : JSON.stringify(d.result);
    const outcome =
      decision === 'input' ? 'input_provided' : decision === 'result' ? 'result_provided' : decision === 'approve' ? (auto ? 'auto_approved' : 'approved') : auto ? 'auto_rejected' : 'rejected';
    this.log({
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      decision: outcome,
      ...(d.approver ? { approver: d.approver } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
      ...(d.message ? { message: d.message } : {}),
      ...(call.editedArguments ? { editedArguments: call.editedArguments } : {}),
      requestedAt: call.requestedAt,
      decidedAt: now,
      via,
    });
    return { callId: call.callId, toolName: call.toolName, outcome, ...(d.approver ? { approver: d.approver } : {}) };
  }
}
