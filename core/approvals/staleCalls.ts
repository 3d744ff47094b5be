// Approvals given for a state that no longer holds. A tool may fingerprint what a call acts on (a record's version,
// an account's balance); the fingerprint is taken when the call is planned and again just before it runs. When the
// two differ the call does not run: it waits for a decision again, on the new state (or, with the tool's
// `onStale: 'reject'`, the model is told it did not run). Pure: the approval book applies this; the tool activity
// compares; the workflow carries it out.
import { addDuration } from '../../contract/approvalPolicy';
import type { AuditEntry } from '../../contract/runViews';
import { type AuditState, appendEntry } from './auditLog';
import type { BookCall } from './approvalBook';

export type Stale = { was: string; now: string };

/** What the model gets when the tool says a stale call is rejected, not asked again. */
export function staleRejection(toolName: string, stale: Stale): string {
  return `The call of ${toolName} did not run: what it acts on changed after it was approved (it was ${JSON.stringify(stale.was)}, now ${JSON.stringify(stale.now)}). Look again before asking to run it.`;
}

/**
 * The call's target changed between its decision and its run: audited `stale`; then either pending again from now
 * on the new fingerprint (approvals so far no longer count; reminders and expiry start over), or, with `reject`,
 * rejected with that text (audited `auto_rejected`).
 */
export function markStale(book: AuditState, call: BookCall, stale: Stale, now: string, reject?: string): BookCall {
  const about = { callId: call.callId, toolName: call.toolName, arguments: call.arguments, agentName: call.agentName };
  const log = (entry: Omit<AuditEntry, 'callId' | 'decidedAt'>) =>
    appendEntry(book, { ...about, ...entry, requestedAt: call.requestedAt, decidedAt: now });
  log({
    decision: 'stale',
    stale,
    reason:
      `what it acts on changed after it was approved: fingerprint ${JSON.stringify(stale.was)} is now ${JSON.stringify(stale.now)}`.slice(
        0,
        500,
      ),
    via: 'run',
  });
  if (reject !== undefined) {
    call.state = 'rejected';
    call.rejectionOutput = reject;
    log({ decision: 'auto_rejected', reason: 'onStale: reject', via: 'rule' });
    return call;
  }
  call.state = 'pending';
  call.fingerprint = stale.now;
  call.stale = stale;
  call.requestedAt = now;
  if (call.timeout) call.expiresAt = addDuration(now, call.timeout);
  if (call.quorum) call.quorum = { needed: call.quorum.needed, approvedBy: [] };
  delete call.remindersSent;
  delete call.escalated;
  delete call.expiryReminderFor;
  delete call.extendedMs;
  return call;
}
