// What the caller of an approved ask-only call (a coding agent's hook, the HTTP approvals API) did with it, as its
// run's audit records it: one `outcome` entry after the decision, which settles nothing (the call stays approved).
import type { AuditEntry, CallOutcome } from '../../contract/runViews';
import { type AuditState, appendEntry } from './auditLog';

/** The outcome in one line: the exit code, the error, the text, in that order. */
export function outcomeLine(o: CallOutcome): string {
  const parts = [
    ...(o.exitCode !== undefined ? [`exit ${o.exitCode}`] : []),
    ...(o.error !== undefined ? [`error: ${o.error}`] : []),
    ...(o.text !== undefined ? [o.text] : []),
  ];
  return (parts.join('; ') || 'reported, with no detail').replace(/\s+/g, ' ');
}

export function recordOutcome(
  s: AuditState,
  call: { callId: string; toolName: string; agentName?: string },
  outcome: CallOutcome,
  now: string,
): Readonly<AuditEntry> {
  const entry: AuditEntry = {
    callId: call.callId,
    toolName: call.toolName,
    ...(call.agentName !== undefined ? { agentName: call.agentName } : {}),
    decision: 'outcome',
    message: outcomeLine(outcome),
    outcome: { ...outcome },
    decidedAt: now,
    via: 'update',
  };
  appendEntry(s, entry);
  return entry;
}
