// The terms an item waits on, from the policies that apply to it: the one place a policy becomes WaitTerms, for a
// model's tool call (planned in the model-turn activity), a tripped guardrail (the guardrails activity) and the
// max-turns question (the workflow). Pure: the agent's own words for an expiry (its toolErrorFormatter) are added by
// the activities, which may run the agent's code.
import { type ApprovalPolicy, type OnTimeout, effectivePolicy } from '../../contract/approvalPolicy';
import { definedFields } from '../definedFields';
import type { WaitTerms } from './plannedCall';

/** What an item's terms are decided from. */
export interface WaitPolicies {
  kind: 'approval' | 'input' | 'external';
  /** The definitions' policy (the agent's < the tool's): who decides and how (quorum, signatures) is theirs alone. */
  defined: ApprovalPolicy;
  /** The run's own policy, which wins for everything else. */
  run?: ApprovalPolicy;
  /** An external call's wait: the tool's resultTimeout. */
  resultTimeout?: string;
  /** The worker signs every decision (COUNTERSIGN_REQUIRE_SIGNED_DECISIONS). */
  requireSignedDecisions?: boolean;
  /** The run's context.requestedBy, whom excludeRequester keeps from approving. */
  requestedBy?: unknown;
}

/**
 * The agent's policy < the tool's < the run's, except that who decides and how (approvers' quorum, signatures) is
 * the definitions' and the worker's, and a run's own onTimeout cannot turn the end of a signed or quorum call's wait
 * into an approval. An external call only rejects or fails when its time runs out.
 */
export function waitTermsOf(p: WaitPolicies): WaitTerms {
  const policy = effectivePolicy(p.defined, p.run);
  const approval = p.kind === 'approval';
  const signedDecisions = approval && (p.requireSignedDecisions === true || p.defined.signedDecisions === true);
  const quorum = approval && (policy.quorum ?? 1) > 1 ? policy.quorum : undefined;
  const excludedApprover =
    approval && policy.excludeRequester && typeof p.requestedBy === 'string' ? p.requestedBy : undefined;
  const timeout = p.kind === 'external' ? p.resultTimeout : policy.approvalTimeout;
  let onTimeout: OnTimeout =
    p.kind === 'external' ? (policy.onTimeout === 'fail' ? 'fail' : 'reject') : (policy.onTimeout ?? 'reject');
  if (onTimeout === 'approve' && (signedDecisions || quorum)) onTimeout = p.defined.onTimeout ?? 'reject';
  const { approvers, maxExtension, remindEvery, remindBeforeExpiry, escalateAfter, escalateTo } = policy;
  return definedFields({
    timeout,
    ...(timeout ? { onTimeout, maxExtension, remindBeforeExpiry } : {}),
    remindEvery,
    escalateAfter,
    escalateTo,
    approvers,
    quorum,
    excludedApprover,
    ...(signedDecisions ? { signedDecisions: true as const } : {}),
  });
}
