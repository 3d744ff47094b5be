// Planning one tool call of a model turn, in the model-turn activity: refuse it (unknown tool, invalid arguments),
// run it now, or hand it to a person — after the tool's needsApproval predicate, its onApproval code and the
// standing grants have had their say (all fail closed: a throw asks a person). Also the argument parsing that
// runTool and edits share.
import { Context, log } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { notGrantable, signatureNeeded } from '../core/grants/grantableTools';
import { type UseGrantResult, useGrantUpdate } from '../contract/grantMessages';
import { checkGrantUse, decodeGrantToken } from '../core/signing/grantToken';
import type { SignedBy } from '../core/approvals/decisionRules';
import { type ApproverKey, verifyGrantSignature } from './approverKeys';
import type { WorkerSettings } from '../config/workerSettings';
import type { Agent, ToolErrorKind } from '../agents/defineAgent';
import type { Tool } from '../agents/defineTool';
import type { FunctionCallItem } from '../contract/items';
import { type ApprovalPolicy, type OnTimeout, effectivePolicy } from '../contract/approvalPolicy';
import type { AutoDecision, CallBase, PlannedCall, Special, WaitTerms } from '../core/approvals/plannedCall';
import { expiryText } from '../core/approvals/decisionText';
import { definedFields } from '../core/definedFields';
import { previewOf } from './callPreview';
import { fingerprintOf } from './callFingerprint';

export const DEFAULT_REJECTION = 'Tool execution was not approved.';

/** What planning needs to know about the run. */
export interface PlanningContext {
  runId: string;
  context: Record<string, unknown>;
  /** The run's own approval policy (wins over the agent's and the tool's): needed for the timeout text. */
  policy?: ApprovalPolicy;
  /** This worker's settings, as createWorker checked them (signed decisions, the standing grants, approver keys). */
  settings: WorkerSettings;
}

/**
 * The terms a call waits on, decided here once (core/approvals/plannedCall.ts, WaitTerms): the agent's policy < the
 * tool's < the run's, except that who decides and how (approvers, quorum, signatures) is the definitions' and the
 * worker's alone, and a run's own onTimeout cannot turn the end of a signed or quorum call's wait into an approval.
 */
async function waitTerms(
  agent: Agent,
  tool: Tool | undefined,
  kind: 'approval' | 'input' | 'external',
  base: CallBase,
  req: PlanningContext,
): Promise<WaitTerms> {
  const defined = effectivePolicy(agent.policy, tool?.policy);
  const policy = effectivePolicy(defined, req.policy);
  const approval = kind === 'approval';
  const signedDecisions = approval && (req.settings.requireSignedDecisions || defined.signedDecisions === true);
  const quorum = approval && (policy.quorum ?? 1) > 1 ? policy.quorum : undefined;
  const requestedBy = req.context.requestedBy;
  const excludedApprover =
    approval && policy.excludeRequester && typeof requestedBy === 'string' ? requestedBy : undefined;
  const timeout = kind === 'external' ? tool?.resultTimeout : policy.approvalTimeout;
  let onTimeout: OnTimeout =
    kind === 'external' ? (policy.onTimeout === 'fail' ? 'fail' : 'reject') : (policy.onTimeout ?? 'reject');
  if (onTimeout === 'approve' && (signedDecisions || quorum)) onTimeout = defined.onTimeout ?? 'reject';
  let timeoutText: string | undefined;
  if (timeout) {
    const standard = expiryText({ kind, timeout });
    const own = await formatError(agent, 'approval_rejected', base, standard, req.context);
    if (own !== standard) timeoutText = own;
  }
  const { approvers, maxExtension, remindEvery, remindBeforeExpiry, escalateAfter, escalateTo } = policy;
  const terms: WaitTerms = {
    timeout,
    ...(timeout ? { onTimeout, timeoutText, maxExtension, remindBeforeExpiry } : {}),
    remindEvery,
    escalateAfter,
    escalateTo,
    approvers,
    quorum,
    excludedApprover,
    ...(signedDecisions ? { signedDecisions: true } : {}),
  };
  return definedFields(terms);
}

/** The text the model sees for a tool error: the agent's formatter if it answers, else the default. */
export async function formatError(
  agent: Agent,
  kind: ToolErrorKind,
  call: CallBase,
  defaultMessage: string,
  context: Record<string, unknown>,
): Promise<string> {
  if (!agent.toolErrorFormatter) return defaultMessage;
  try {
    const text = await agent.toolErrorFormatter({
      kind,
      toolName: call.toolName,
      callId: call.callId,
      defaultMessage,
      context,
    });
    return typeof text === 'string' && text.length > 0 ? text : defaultMessage;
  } catch (err) {
    log.warn('toolErrorFormatter threw; using the default message', { agent: agent.name, kind, error: String(err) });
    return defaultMessage;
  }
}

export type ParsedArgs = { ok: true; params: Record<string, unknown> } | { ok: false; problem: string };

/**
 * With `partial`, the tool's userInput fields may be missing (the model leaves them to a person). With `strict`,
 * keys the schema does not know are refused instead of dropped (for what people send: edits and input values).
 */
export function parseArguments(tool: Tool, raw: string, partial = false, strict = false): ParsedArgs {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, problem: 'the arguments are not valid JSON' };
  }
  const base = strict ? tool.parameters.strict() : tool.parameters;
  const schema =
    partial && tool.userInput?.length
      ? base.partial(Object.fromEntries(tool.userInput.map((f) => [f, true])) as never)
      : base;
  const parsed = (schema as z.ZodType).safeParse(json);
  if (parsed.success) return { ok: true, params: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0]!;
  return { ok: false, problem: `${issue.path.join('.') || 'arguments'}: ${issue.message}` };
}

/** true, false, or 'audit' (run at once, then review): anything else a predicate answers is false, as before. */
async function needsApproval(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  call: CallBase,
  req: PlanningContext,
): Promise<boolean | 'audit'> {
  if (typeof tool.needsApproval !== 'function')
    return tool.needsApproval === true || tool.needsApproval === 'audit' ? tool.needsApproval : false;
  try {
    const answer = await tool.needsApproval(
      { runId: req.runId, agentName: agent.name, callId: call.callId, context: req.context },
      params,
      call.callId,
    );
    return answer === true || answer === 'audit' ? answer : false;
  } catch (err) {
    // Fail closed: a predicate that cannot decide asks a person.
    log.warn('needsApproval predicate threw; approval required', {
      tool: tool.name,
      callId: call.callId,
      error: String(err),
    });
    return true;
  }
}

const autoDecisionSchema = z.union([
  z.object({ approve: z.literal(true), reason: z.string().optional() }),
  z.object({ approve: z.literal(false), message: z.string().optional(), reason: z.string().optional() }),
]);

/** The tool's onApproval verdict for a gated call; undefined (ask a person) when it has none, abstains, throws or answers nonsense. */
async function autoDecision(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  call: CallBase,
  req: PlanningContext,
): Promise<AutoDecision | undefined> {
  if (!tool.onApproval) return undefined;
  let verdict: unknown;
  try {
    verdict = await tool.onApproval(
      { runId: req.runId, agentName: agent.name, callId: call.callId, context: req.context },
      { toolName: tool.name, callId: call.callId, arguments: params },
    );
  } catch (err) {
    log.warn('onApproval threw; a person decides', { tool: tool.name, callId: call.callId, error: String(err) });
    return undefined;
  }
  if (verdict === undefined) return undefined;
  const parsed = autoDecisionSchema.safeParse(verdict);
  if (!parsed.success) {
    log.warn('onApproval answered neither { approve: true } nor { approve: false }; a person decides', {
      tool: tool.name,
      callId: call.callId,
    });
    return undefined;
  }
  const { reason } = parsed.data;
  if (parsed.data.approve) return { decision: 'approve', ...(reason ? { reason } : {}) };
  const { message } = parsed.data;
  return { decision: 'reject', ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
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
  call: { agent: string; tool: string; arguments: string },
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
async function grantDecision(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  call: CallBase,
  req: PlanningContext,
): Promise<AutoDecision | undefined> {
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
  const callKey = `${info.workflowExecution?.workflowId ?? req.runId}:${info.workflowExecution?.runId ?? ''}:${call.callId}`;
  const requestedBy = req.context.requestedBy;
  const signed = signatureNeeded(tool.name, policy, req.settings.requireSignedDecisions) !== undefined;
  const request = {
    ...(signed ? { signedOnly: true as const } : {}),
    agent: agent.name,
    tool: tool.name,
    arguments: JSON.stringify(params), // what would run, as the tool's schema reads the model's arguments
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
    const signer = signed ? grantSigner(req.settings.approverKeys, granted, request) : undefined;
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

/** A hosted MCP server's approval request: always a person's (or a sticky rule's) to decide. */
export async function planHostedApproval(
  agent: Agent,
  item: { id: string; serverLabel: string; name: string; arguments: string },
  req: PlanningContext,
): Promise<PlannedCall> {
  const base: CallBase = { callId: item.id, toolName: item.name, arguments: item.arguments };
  const rejectionText = await formatError(agent, 'approval_rejected', base, DEFAULT_REJECTION, req.context);
  return {
    ...base,
    disposition: 'approval',
    rejectionText,
    wait: await waitTerms(agent, undefined, 'approval', base, req),
    hostedMcp: item.serverLabel,
  };
}

/** Plans one call against the tools this turn offered (the agent's, and its MCP servers' as the run froze them). */
export async function planCall(
  agent: Agent,
  tools: readonly Tool[],
  call: FunctionCallItem,
  req: PlanningContext,
): Promise<PlannedCall> {
  const base: CallBase = { callId: call.callId, toolName: call.name, arguments: call.arguments };
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    const available = tools.map((t) => t.name).join(', ') || 'none';
    const output = await formatError(
      agent,
      'tool_not_found',
      base,
      `Tool ${call.name} not found. Available tools: ${available}.`,
      req.context,
    );
    return { ...base, disposition: 'error', output };
  }
  const parsed = parseArguments(tool, call.arguments, true);
  if (!parsed.ok) {
    const text = `Invalid arguments for tool ${call.name}: ${parsed.problem}. Call it again with arguments that match its schema.`;
    return {
      ...base,
      disposition: 'error',
      output: await formatError(agent, 'invalid_arguments', base, text, req.context),
    };
  }
  const rejectionText = await formatError(agent, 'approval_rejected', base, DEFAULT_REJECTION, req.context);
  if (tool.external)
    return {
      ...base,
      disposition: 'external',
      rejectionText,
      wait: await waitTerms(agent, tool, 'external', base, req),
    };
  const once = tool.idempotent === false ? { idempotent: false as const } : {};
  const toolCtx = { runId: req.runId, agentName: agent.name, callId: call.callId, context: req.context };
  const previewed = async () => {
    const preview = await previewOf(tool, parsed.params, toolCtx);
    return preview ? { preview } : {};
  };
  // A call a person decides carries the state it is decided for; the tool activity checks it again before it runs.
  const guarded = async () =>
    !tool.fingerprint
      ? {}
      : {
          fingerprint: (await fingerprintOf(tool, parsed.params, toolCtx)).fingerprint,
          ...(tool.onStale === 'reject' ? { onStale: 'reject' as const } : {}),
        };
  if (tool.userInput?.length)
    return {
      ...base,
      ...once,
      ...(await guarded()),
      ...(await previewed()),
      disposition: 'input',
      fields: [...tool.userInput],
      rejectionText,
      wait: await waitTerms(agent, tool, 'input', base, req),
    };
  const handoff: Special = {
    ...(tool.handoffTo ? { handoffTo: tool.handoffTo } : {}),
    ...(tool.subAgent ? { subAgent: tool.subAgent, ...(tool.shareAlwaysRules ? { shareAlwaysRules: true } : {}) } : {}),
  };
  const needs = await needsApproval(agent, tool, parsed.params, base, req);
  if (needs === 'audit') return { ...base, ...once, disposition: 'run', audit: true, review: true, ...handoff };
  if (!needs) return { ...base, ...once, disposition: 'run', ...(tool.audit ? { audit: true } : {}), ...handoff };
  const auto =
    (await autoDecision(agent, tool, parsed.params, base, req)) ??
    (await grantDecision(agent, tool, parsed.params, base, req));
  return {
    ...base,
    ...once,
    ...(await guarded()),
    ...(auto ? { auto } : await previewed()),
    disposition: 'approval',
    rejectionText,
    wait: await waitTerms(agent, tool, 'approval', base, req),
    ...handoff,
  };
}
