// What a call that waits for a person enters the approval book with: its kind, its expiry and what that does,
// who may decide it and how (approvers, quorum, the requester excluded, signed decisions). Pure: the workflow
// books it; the policy comes from the run's agent snapshot (agent < tool < run).
import type { AgentRunState } from '../run/agentRunState';
import type { BookCall } from './approvalBook';
import { addDuration, durationMs, effectivePolicy } from '../../contract/approvalPolicy';
import type { PlannedCall } from './plannedCall';

export type Booking = Omit<BookCall, 'state' | 'rejectionOutput'>;

export function bookingFor(s: AgentRunState, c: Exclude<PlannedCall, { disposition: 'error' | 'run' }>, requestedAt: string): Booking {
  const policy = s.policyFor(c.toolName);
  const tool = s.agent?.tools.find((t) => t.name === c.toolName);
  const { resultTimeout, mcpServer = 'hostedMcp' in c ? c.hostedMcp : undefined } = tool ?? {};
  const approval = c.disposition === 'approval';
  const signedDecisions = approval && 'signedDecisions' in c && c.signedDecisions === true;
  const quorum = approval && (policy.quorum ?? 1) > 1 ? { needed: policy.quorum!, approvedBy: [] } : undefined;
  const requestedBy = s.input.context?.requestedBy;
  const excludedApprover = approval && policy.excludeRequester && typeof requestedBy === 'string' ? requestedBy : undefined;
  // External calls wait on their tool's resultTimeout (and only reject or fail); the others on the approval policy.
  const timeout = c.disposition === 'external' ? resultTimeout : policy.approvalTimeout;
  let onTimeout = c.disposition === 'external' ? (policy.onTimeout === 'fail' ? 'fail' : 'reject') : (policy.onTimeout ?? 'reject');
  // A run's own input may shorten a wait, but not turn its end into an approval people were required to sign or to reach a quorum for.
  if (onTimeout === 'approve' && (signedDecisions || quorum)) onTimeout = effectivePolicy(s.agent?.policy, tool?.policy).onTimeout ?? 'reject';
  return {
    callId: c.callId,
    ...(c.disposition !== 'approval' ? { kind: c.disposition } : {}),
    ...(c.disposition === 'input' ? { fields: c.fields } : {}),
    toolName: c.toolName,
    arguments: c.arguments,
    agentName: s.agentRef().name,
    requestedAt,
    rejectionText: c.rejectionText,
    ...(timeout ? { expiresAt: addDuration(requestedAt, timeout), onTimeout, timeoutText: c.timeoutText } : {}),
    ...(timeout && policy.maxExtension ? { maxExtensionMs: durationMs(policy.maxExtension) } : {}),
    ...(policy.approvers ? { approvers: policy.approvers } : {}),
    ...(mcpServer ? { mcpServer } : {}),
    ...(quorum ? { quorum } : {}),
    ...(signedDecisions ? { signedDecisions: true as const } : {}),
    ...(excludedApprover !== undefined ? { excludedApprover } : {}),
  };
}
