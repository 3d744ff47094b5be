// Who decides a gated call before a person is asked, in the model-turn activity: the tool's onApproval code, then
// a standing grant (the grants workflow), asked in that order by planCall. Both fail closed: whatever goes wrong, a
// person decides (an onApproval that cannot decide, with the reason, and then no grant is asked either). Both get the
// call's arguments as planning parsed them, never their text read again.
import { Context, log } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { notGrantable, signatureNeeded } from '../core/grants/grantableTools';
import { type UseGrantResult, useGrantUpdate } from '../contract/grantMessages';
import { checkGrantUse, decodeGrantToken } from '../core/signing/grantToken';
import type { SignedBy } from '../core/approvals/decisionRules';
import { type ApproverKey, verifyGrantSignature } from './approverKeys';
import type { WorkerSettings } from '../config/workerSettings';
import type { Agent } from '../agents/defineAgent';
import type { Tool } from '../agents/defineTool';
import { effectivePolicy } from '../contract/approvalPolicy';
import type { PlannedAutoDecision, CallBase } from '../core/approvals/plannedCall';
import { askPredicate } from './predicateAnswers';

/** The run a call belongs to and the worker's settings (callPlanning.ts's PlanningContext has them). */
interface CallOfRun {
  workflowId: string;
  settings: WorkerSettings;
  context: Record<string, unknown>;
}

const autoDecisionSchema = z.union([
  z.object({ approve: z.literal(true), reason: z.string().optional() }),
  z.object({ approve: z.literal(false), message: z.string().optional(), reason: z.string().optional() }),
]);

/**
 * The tool's onApproval verdict for a gated call (`auto`); nothing when it has none or abstains (undefined): a person
 * decides; `askedBecause` when it threw, took too long or answered what it may not: a person decides, and that is why.
 */
export async function autoDecision(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  call: CallBase,
  req: CallOfRun,
): Promise<{ auto?: PlannedAutoDecision; askedBecause?: string }> {
  const onApproval = tool.onApproval;
  if (!onApproval) return {};
  const asked = await askPredicate(
    {
      what: 'onApproval',
      accepts: (answer) => answer === undefined || autoDecisionSchema.safeParse(answer).success,
      expected: '{ approve: true }, { approve: false } or undefined',
      limitMs: req.settings.predicateTimeoutMs,
    },
    () =>
      onApproval(
        { runId: req.workflowId, agentName: agent.name, callId: call.callId, context: req.context },
        { toolName: tool.name, callId: call.callId, arguments: params },
      ),
  );
  if ('why' in asked) return { askedBecause: asked.why };
  const parsed = autoDecisionSchema.safeParse(asked.answer);
  if (!parsed.success) return {}; // undefined: it leaves the call to a person
  const { reason } = parsed.data;
  if (parsed.data.approve) return { auto: { decision: 'approve', ...(reason ? { reason } : {}) } };
  const { message } = parsed.data;
  return { auto: { decision: 'reject', ...(reason ? { reason } : {}), ...(message ? { message } : {}) } };
}

/** How long planning waits for the grants workflow (its worker may be down) before a person decides instead. */
const GRANT_CHECK_TIMEOUT_MS = 10_000;

/**
 * Who signed the grant a call used, checked again here (signature and claims) for a tool that needs signed decisions
 * or a quorum: a grant that reached the grants workflow another way (a crafted start input) approves nothing.
 */
function grantSigner(
  keys: ApproverKey[],
  granted: NonNullable<UseGrantResult>,
  call: { agent: string; tool: string; params: Record<string, unknown> },
): SignedBy | string {
  if (granted.token === undefined) return 'the grant is not signed';
  const verdict = verifyGrantSignature(keys, granted.token);
  if (!verdict.ok) return verdict.problem;
  const decoded = decodeGrantToken(granted.token);
  if ('problem' in decoded) return decoded.problem;
  const problem = checkGrantUse(decoded, {
    ...call,
    grantedBy: granted.grantedBy,
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  return problem ?? { kid: decoded.kid, jti: decoded.claims.jti, exp: decoded.claims.exp };
}

/**
 * A standing grant for a gated call that onApproval left undecided, or undefined: a person decides. The policy is
 * the agent's and the tool's (a run's input cannot widen it); the grants workflow skips grants by people who may not
 * approve the call, and takes a use only from a grant that applies (once per call, however often this activity retries).
 */
export async function grantDecision(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  call: CallBase,
  req: CallOfRun,
): Promise<PlannedAutoDecision | undefined> {
  const policy = effectivePolicy(agent.policy, tool.policy);
  if (notGrantable(tool.name, policy, req.settings.requireSignedDecisions)) return undefined;
  let ctx: Context;
  try {
    ctx = Context.current();
    void ctx.client; // throws without a worker client (e.g. a mock activity environment): nothing to ask
  } catch {
    return undefined;
  }
  const { client, info } = ctx;
  // The run (workflow id and run id: a reused workflow id is another run) and the call: the same on every retry.
  const callKey = `${info.workflowExecution?.workflowId ?? req.workflowId}:${info.workflowExecution?.runId ?? ''}:${call.callId}`;
  const requestedBy = req.context.requestedBy;
  const signed = signatureNeeded(tool.name, policy, req.settings.requireSignedDecisions) !== undefined;
  const request = {
    ...(signed ? { signedOnly: true as const } : {}),
    agent: agent.name,
    tool: tool.name,
    // The update's field is JSON text (the grants workflow's recorded wire): what would run, as the schema read it.
    arguments: JSON.stringify(params),
    callKey,
    ...(policy.approvers ? { approvers: policy.approvers } : {}),
    ...(policy.excludeRequester && typeof requestedBy === 'string' ? { notBy: requestedBy } : {}),
  };
  try {
    const handle = client.workflow.getHandle(req.settings.grantsWorkflowId);
    const granted = await client.withDeadline(Date.now() + GRANT_CHECK_TIMEOUT_MS, () =>
      handle.executeUpdate(useGrantUpdate, { args: [request], updateId: `use:${callKey}` }),
    );
    if (!granted) return undefined;
    const signer = signed
      ? grantSigner(req.settings.approverKeys, granted, { agent: agent.name, tool: tool.name, params })
      : undefined;
    if (typeof signer === 'string') {
      log.warn('a signed grant did not check out; a person decides', {
        tool: tool.name,
        callId: call.callId,
        grantId: granted.grantId,
        problem: signer,
      });
      return undefined;
    }
    log.info('call approved by a standing grant', {
      tool: tool.name,
      callId: call.callId,
      grantId: granted.grantId,
      grantedBy: granted.grantedBy,
    });
    return {
      decision: 'approve',
      reason: `standing grant ${granted.grantId}`,
      grantId: granted.grantId,
      grantedBy: granted.grantedBy,
      ...(signer ? { signed: signer } : {}),
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined; // nobody has granted anything yet: no grants workflow
    log.warn('standing grants could not be checked; a person decides', {
      tool: tool.name,
      callId: call.callId,
      error: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}
