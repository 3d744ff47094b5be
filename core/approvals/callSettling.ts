// How a decision settles a call in the approval book: the call's new state, the text the model gets, the audit entry
// and the outcome the decider is told. A plain decision settles it; one approval of a call that needs more is
// counted; an extension moves its expiry; its time running out or its run ending settle it without a person. Pure
// functions over the book's own state: only ApprovalBook calls them.
import { addDuration, durationMs } from '../../contract/approvalPolicy';
import { type DecisionOutcome, outcomeOf } from '../../contract/decisionWords';
import type { Decision } from '../../contract/messages';
import type { AppliedDecision, AuditEntry } from '../../contract/runViews';
import type { OnTimeout } from '../../contract/approvalPolicy';
import { type AuditState, appendEntry } from './auditLog';
import { expiryText } from './decisionText';
import type { BookCall } from './bookCall';
import type { BookDecision } from './decisionRules';
import { uncertainOutput } from './uncertainCalls';

export function about(
  call: BookCall,
): Pick<AuditEntry, 'callId' | 'toolName' | 'arguments' | 'agentName' | 'askedBecause'> {
  const { callId, toolName, arguments: args, agentName, askedBecause } = call;
  return { callId, toolName, arguments: args, agentName, ...(askedBecause ? { askedBecause } : {}) };
}

export function signer(d: { signed?: BookDecision['signed'] }): Pick<AuditEntry, 'verified' | 'keyId' | 'jti'> {
  return d.signed ? { verified: true, keyId: d.signed.kid, jti: d.signed.jti } : {};
}

/** What an audit entry says beyond the call it is about and when and how it was decided. */
type Said = Omit<AuditEntry, 'seq' | keyof ReturnType<typeof about> | 'requestedAt' | 'decidedAt' | 'via'>;

/** Audits what became of the call: the call, what was said, when it was asked and decided, and how. */
function audit(book: AuditState, call: BookCall, now: string, via: AuditEntry['via'], said: Said): AuditEntry {
  const entry: AuditEntry = { ...about(call), ...said, requestedAt: call.requestedAt, decidedAt: now, via };
  appendEntry(book, entry);
  return entry;
}

/** Audits a decision and tells the decider what the audit says: the outcome, who, and where a quorum or expiry stands. */
function decided(
  book: AuditState,
  call: BookCall,
  now: string,
  via: AuditEntry['via'],
  said: Said & { decision: DecisionOutcome },
): AppliedDecision {
  const { approver, verified, quorum, expiresAt } = audit(book, call, now, via, said);
  return {
    callId: call.callId,
    toolName: call.toolName,
    outcome: said.decision,
    ...(approver !== undefined ? { approver } : {}),
    ...(verified ? { verified } : {}),
    ...(quorum ? { quorum } : {}),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/** One approval of a call that needs more: recorded, and the call waits on. */
export function count(
  book: AuditState,
  call: BookCall,
  d: BookDecision,
  now: string,
  via: 'signal' | 'update',
): AppliedDecision {
  const quorum = call.quorum!;
  quorum.approvedBy.push(d.approver!);
  return decided(book, call, now, via, {
    decision: 'approval_counted',
    approver: d.approver,
    ...(d.reason ? { reason: d.reason } : {}),
    ...signer(d),
    quorum: { needed: quorum.needed, approvedBy: [...quorum.approvedBy] },
  });
}

/** More time for a pending call (checked against its maxExtension already). */
export function extend(
  book: AuditState,
  call: BookCall,
  d: BookDecision,
  now: string,
  via: 'signal' | 'update',
): AppliedDecision {
  call.expiresAt = addDuration(call.expiresAt!, d.by!);
  call.extendedMs = (call.extendedMs ?? 0) + durationMs(d.by!);
  return decided(book, call, now, via, {
    decision: 'extended',
    ...(d.approver ? { approver: d.approver } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
    extendedBy: d.by!,
    expiresAt: call.expiresAt,
  });
}

export function settle(
  book: AuditState,
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
  return decided(book, call, now, via, {
    decision: outcome,
    ...(d.approver ? { approver: d.approver } : {}),
    ...signer(d),
    ...(call.quorum && outcome === 'approved'
      ? { quorum: { needed: call.quorum.needed, approvedBy: [...call.quorum.approvedBy] } }
      : {}),
    ...(d.reason ? { reason: d.reason } : {}),
    ...(d.message ? { message: d.message } : {}),
    ...(call.editedArguments ? { editedArguments: call.editedArguments } : {}),
    ...(d.grantId !== undefined ? { grantId: d.grantId } : {}),
  });
}

/** The call's time is up: decided by its onTimeout ('reject' unless said otherwise); 'fail' leaves it rejected. */
export function expire(book: AuditState, call: BookCall, now: string): OnTimeout {
  const action = call.onTimeout ?? 'reject';
  call.state = action === 'approve' ? 'approved' : 'rejected';
  if (call.state === 'rejected')
    call.rejectionOutput =
      call.timeoutText ??
      (call.timeout
        ? expiryText({ kind: call.kind, timeout: call.timeout, extendedMs: call.extendedMs })
        : call.rejectionText);
  audit(book, call, now, 'timer', { decision: action === 'approve' ? 'timed_out' : 'expired', onTimeout: action });
  return action;
}

/** The run ended while the call waited: it will never run. */
export function cancel(book: AuditState, call: BookCall, now: string, because: string): void {
  call.state = 'cancelled';
  audit(book, call, now, 'run', { decision: 'cancelled', reason: because.slice(0, 500) });
}
