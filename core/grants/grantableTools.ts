// Which tools may be granted, and which grants must be signed: a grant never widens a tool's policy. The same rules
// for the grants workflow (when a grant is made) and the planner (when a call could use one). Pure.
import type { AgentSnapshot } from '../run/agentSnapshot';
import { type ApprovalPolicy, effectivePolicy } from '../../contract/approvalPolicy';
import { amongApprovers } from '../../contract/approverName';

/**
 * A grant never widens a tool's policy: `grantable: false` forbids grants, and calls that need a quorum or signed
 * decisions (the tool's, the agent's or the worker's setting) are granted only when the policy says `grantable: true`.
 */
export function notGrantable(
  toolName: string,
  policy: ApprovalPolicy,
  workerRequiresSigned = false,
): string | undefined {
  if (policy.grantable === true) return undefined;
  if (policy.grantable === false) return `tool ${toolName} may not be granted (its policy says grantable: false)`;
  if ((policy.quorum ?? 1) > 1)
    return `tool ${toolName} needs ${policy.quorum} approvals per call (quorum): it cannot be granted unless its policy says grantable: true`;
  if (policy.signedDecisions || workerRequiresSigned)
    return `tool ${toolName} needs signed decisions: it cannot be granted unless its policy says grantable: true`;
  return undefined;
}

/** Why `tool` of this agent (as describeAgent sees it now) cannot be granted, or undefined. */
export function grantRefusal(agent: AgentSnapshot, toolName: string): string | undefined {
  const tool = agent.tools.find((t) => t.name === toolName);
  if (!tool)
    return `agent ${agent.name} has no tool ${toolName} (it has: ${agent.tools.map((t) => t.name).join(', ') || 'none'})`;
  if (tool.external || tool.userInput?.length)
    return `tool ${toolName} waits for ${tool.external ? 'an external result' : 'input'}, not an approval: there is nothing to grant`;
  if (tool.approval === 'never') return `tool ${toolName} never needs approval: there is nothing to grant`;
  if (tool.approval === 'audit')
    return `tool ${toolName} runs without waiting and is reviewed afterwards (audit-only): there is nothing to grant`;
  return notGrantable(toolName, effectivePolicy(agent.policy, tool.policy), agent.requireSignedDecisions);
}

/**
 * Why a grant of this tool must be signed by an approver key (the tool needs signed decisions or a quorum: a grant
 * stands in for those decisions), or undefined. The same rule for the grants workflow and the planner.
 */
export function signatureNeeded(
  toolName: string,
  policy: ApprovalPolicy,
  workerRequiresSigned = false,
): string | undefined {
  if ((policy.quorum ?? 1) > 1) return `tool ${toolName} needs ${policy.quorum} approvals per call (quorum)`;
  if (policy.signedDecisions || workerRequiresSigned) return `tool ${toolName} needs signed decisions`;
  return undefined;
}

/** signatureNeeded for a tool of an agent as describeAgent sees it now. */
export function grantSignatureNeeded(agent: AgentSnapshot, toolName: string): string | undefined {
  return signatureNeeded(
    toolName,
    effectivePolicy(agent.policy, agent.tools.find((t) => t.name === toolName)?.policy),
    agent.requireSignedDecisions,
  );
}

/** A grant the tool's approver list leaves out is kept but never applies: say so when it is made. */
export function grantWarning(agent: AgentSnapshot, toolName: string, grantedBy: string): string | undefined {
  const { approvers } = effectivePolicy(agent.policy, agent.tools.find((t) => t.name === toolName)?.policy);
  if (!approvers || amongApprovers(approvers, grantedBy)) return undefined;
  return `${grantedBy} is not among the approvers of ${toolName} (${approvers.join(', ')}): this grant applies to none of its calls`;
}
