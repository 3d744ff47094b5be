// How a decision settles a call in the approval book: the call's new state, the text the model gets, the audit entry
// and the outcome the decider is told. A plain decision settles it; one approval of a call that needs more is
// counted; an extension moves its expiry; its time running out or its run ending settle it without a person. Pure
// functions over the book's own state: only ApprovalBook calls them.
import { addDuration, durationMs } from '../../contract/approvalPolicy';
import { outcomeOf } from '../../contract/decisionWords';
import type { Decision } from '../../contract/messages';
import type { AppliedDecision, AuditEntry } from '../../contract/runViews';
import type { OnTimeout } from '../../contract/approvalPolicy';
import { type AuditState, appendEntry } from './auditLog';
import { expiryText } from './decisionText';
import type { BookCall } from './bookCall';
import type { BookDecision } from './decisionRules';
import { uncertainOutput } from './uncertainCalls';

export function about(call: BookCall): Pick<AuditEntry, 'callId' | 'toolName' | 'arguments' | 'agentName'> {
  return { callId: call.callId, toolName: call.toolName, arguments: call.arguments, agentName: call.agentName };
}

export function signer(d: { signed?: BookDecision['signed'] }): Partial<AuditEntry> {
  return d.signed ? { verified: true, keyId: d.signed.kid, jti: d.signed.jti } : {};
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
  const snapshot = { needed: quorum.needed, approvedBy: [...quorum.approvedBy] };
  appendEntry(book, {
    ...about(call),
    decision: 'approval_counted',
    approver: d.approver,
    ...(d.reason ? { reason: d.reason } : {}),
    ...signer(d),
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
export function extend(
  book: AuditState,
  call: BookCall,
  d: BookDecision,
  now: string,
  via: 'signal' | 'update',
): AppliedDecision {
  call.expiresAt = addDuration(call.expiresAt!, d.by!);
  call.extendedMs = (call.extendedMs ?? 0) + durationMs(d.by!);
  appendEntry(book, {
    ...about(call),
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
  const quorum =
    call.quorum && outcome === 'approved'
      ? { quorum: { needed: call.quorum.needed, approvedBy: [...call.quorum.approvedBy] } }
      : {};
  appendEntry(book, {
    ...about(call),
    decision: outcome,
    ...(d.approver ? { approver: d.approver } : {}),
    ...signer(d),
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
  appendEntry(book, {
    ...about(call),
    decision: action === 'approve' ? 'timed_out' : 'expired',
    onTimeout: action,
    requestedAt: call.requestedAt,
    decidedAt: now,
    via: 'timer',
  });
  return action;
}

/** The run ended while the call waited: it will never run. */
export function cancel(book: AuditState, call: BookCall, now: string, because: string): void {
  call.state = 'cancelled';
  appendEntry(book, {
    ...about(call),
    decision: 'cancelled',
    reason: because.slice(0, 500),
    requestedAt: call.requestedAt,
    decidedAt: now,
    via: 'run',
  });
}
