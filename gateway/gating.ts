// Which of the gateway's tools a person decides, and on what terms. The config's terms for the tool, else its "*"
// terms; needsApproval left out there (or no terms at all) follows the upstream's annotations, failing closed:
// only a tool that says it is read-only (readOnlyHint: true) runs without a person. A rule (argumentRules.ts)
// decides per call: a call it spares runs as an ungated one does.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import type { WaitTerms } from '../core/approvals/plannedCall';
import { waitTermsOf } from '../core/approvals/waitTerms';
import type { ArgumentRule, GatewayConfig } from './gatewayConfig';
import { ruleAsks } from './argumentRules';
import { CALLER, callerNamed } from './callerDecides';

export interface Gate {
  /** A person may decide its calls (it is listed as one that may run as a task). */
  gated: boolean;
  /** Which calls: those this rule asks about; every call where there is none. */
  rule?: ArgumentRule;
  /** The tool's approval policy (approvers, quorum, timeout, …) from its terms. */
  policy: ApprovalPolicy;
}

export function gateOf(config: GatewayConfig, tool: Tool): Gate {
  const { needsApproval, ...policy } = config.tools[tool.name] ?? config.tools['*'] ?? {};
  const byHints = tool.annotations?.readOnlyHint !== true;
  if (typeof needsApproval === 'object') return { gated: true, rule: needsApproval, policy };
  return { gated: typeof needsApproval === 'boolean' ? needsApproval : byHints, policy };
}

/** A person decides this call of the tool. */
export const asksPerson = (gate: Gate, args: Record<string, unknown>): boolean =>
  gate.gated && (!gate.rule || ruleAsks(gate.rule, args));

/** The terms a gated call waits on (core/approvals/waitTerms.ts), for this requester. */
export function termsOf(gate: Gate, requester: string, requireSignedDecisions: boolean): WaitTerms {
  const approvers = callerNamed(gate.policy.approvers, requester);
  const defined = approvers ? { ...gate.policy, approvers } : gate.policy;
  return waitTermsOf({ kind: 'approval', defined, requireSignedDecisions, requestedBy: requester });
}

/** The tool's terms let the caller decide its own call ("$caller" among its approvers). */
export const callerMayDecide = (gate: Gate): boolean => gate.policy.approvers?.includes(CALLER) === true;
