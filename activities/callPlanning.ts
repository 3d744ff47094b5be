// Planning one tool call of a model turn, in the model-turn activity: refuse it (unknown tool, invalid arguments),
// run it now, or hand it to a person — after the tool's needsApproval predicate, its onApproval code and the
// standing grants (autoDecisions.ts) have had their say. Every predicate is asked one way (predicateAnswers.ts) and
// fails closed: a throw, no answer in time or an answer it may not give asks a person, and the call says why. The
// call's arguments are parsed here once (toolArguments.ts); everything planning asks of the tool gets those values.
import type { WorkerSettings } from '../config/workerSettings';
import type { Agent } from '../agents/defineAgent';
import type { Tool } from '../agents/defineTool';
import type { FunctionCallItem } from '../contract/items';
import { type ApprovalPolicy, effectivePolicy } from '../contract/approvalPolicy';
import type { CallBase, PlannedCall, Special, WaitTerms } from '../core/approvals/plannedCall';
import { expiryText } from '../core/approvals/decisionText';
import { waitTermsOf } from '../core/approvals/waitTerms';
import { previewOf } from './callPreview';
import { fingerprintOf } from './callFingerprint';
import { autoDecision, grantDecision } from './autoDecisions';
import { parseArguments } from './toolArguments';
import { failureText, formatError } from './toolErrorText';
import { checkToolInput, tripwire } from './toolGuardrailChecks';
import { askPredicate } from './predicateAnswers';

export const DEFAULT_REJECTION = 'Tool execution was not approved.';

/** What a needsApproval predicate may answer. */
const NEEDS_APPROVAL = (limitMs: number) => ({
  what: 'needsApproval',
  accepts: (answer: unknown) => answer === true || answer === false || answer === 'audit',
  expected: 'a boolean',
  limitMs,
});

/** What planning needs to know about the run. */
export interface PlanningContext {
  /** The run's workflow id (tools and predicates get it as ToolContext.runId). */
  workflowId: string;
  context: Record<string, unknown>;
  /** The run's own approval policy (wins over the agent's and the tool's): needed for the timeout text. */
  policy?: ApprovalPolicy;
  /** This worker's settings, as createWorker checked them (signed decisions, the standing grants, approver keys). */
  settings: WorkerSettings;
}

/**
 * The terms a call waits on, decided here once (core/approvals/waitTerms.ts), with the agent's own words for its
 * expiry where its toolErrorFormatter has some (the formatter gets the call as it is booked).
 */
export async function waitTerms(
  agent: Agent,
  tool: Tool | undefined,
  kind: 'approval' | 'input' | 'external',
  base: CallBase,
  req: PlanningContext,
): Promise<WaitTerms> {
  const terms = waitTermsOf({
    kind,
    defined: effectivePolicy(agent.policy, tool?.policy),
    run: req.policy,
    resultTimeout: tool?.resultTimeout,
    requireSignedDecisions: req.settings.requireSignedDecisions,
    requestedBy: req.context.requestedBy,
  });
  if (!terms.timeout) return terms;
  const standard = expiryText({ kind, timeout: terms.timeout });
  const own = await formatError(agent, 'approval_rejected', base, standard, req.context);
  return own === standard ? terms : { ...terms, timeoutText: own };
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
  const parsed = parseArguments(tool, call.arguments, { partial: true });
  const run = { runId: req.workflowId, context: req.context };
  if (!parsed.ok) {
    const text = `Invalid arguments for tool ${call.name}: ${parsed.problem}. Call it again with arguments that match its schema.`;
    const failure = { kind: 'invalid_arguments' as const, message: parsed.problem };
    return { ...base, disposition: 'error', output: await failureText(agent, tool, failure, base, text, run) };
  }
  // The tool's input guardrails: allow, answer the model instead, fail the run, or (ask) put the call before a person.
  const toolCall = { callId: call.callId, name: call.name, arguments: call.arguments };
  const limitMs = req.settings.predicateTimeoutMs;
  const checked = { arguments: parsed.params, toolCall, agentName: agent.name, ...run };
  const verdict = await checkToolInput(tool, checked, limitMs);
  if (verdict?.type === 'rejectContent') return { ...base, disposition: 'error', output: verdict.message };
  if (verdict?.type === 'throwException') throw tripwire('input', verdict.name, tool.name, verdict.outputInfo);
  const asked = verdict?.type === 'ask' ? { guardrail: verdict.guardrail } : {};
  let askedBecause = verdict?.type === 'ask' ? verdict.askedBecause : undefined;
  // A tool with a timeout: what the model gets if it runs past it, written now (the workflow cannot run errorText).
  const late = `Tool ${tool.name} did not finish within ${tool.timeout}`;
  const timed = tool.timeout
    ? { timedOutText: await failureText(agent, tool, { kind: 'timed_out', message: late }, base, `${late}.`, run) }
    : {};
  const rejectionText = await formatError(agent, 'approval_rejected', base, DEFAULT_REJECTION, req.context);
  if (tool.external)
    return {
      ...base,
      ...asked,
      disposition: 'external',
      rejectionText,
      wait: await waitTerms(agent, tool, 'external', base, req),
    };
  const once = { ...(tool.idempotent === false ? { idempotent: false as const } : {}), ...asked, ...timed };
  const toolCtx = { runId: req.workflowId, agentName: agent.name, callId: call.callId, context: req.context };
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
  // true, false, or 'audit' (run at once, then review); anything else, a throw or no answer in time: a person decides.
  let needs: unknown = tool.needsApproval ?? false;
  const predicate = tool.needsApproval;
  if (typeof predicate === 'function' && !asked.guardrail) {
    const answered = await askPredicate(NEEDS_APPROVAL(limitMs), () => predicate(toolCtx, parsed.params, call.callId));
    needs = 'why' in answered ? 'person' : answered.answer;
    if ('why' in answered) askedBecause = answered.why;
  }
  // An input guardrail that asks puts the call before a person, whatever the tool's own rule, and no code decides it;
  // so does a needsApproval that could not decide.
  if (asked.guardrail) needs = 'guardrail';
  if (needs === 'audit') return { ...base, ...once, disposition: 'run', audit: true, review: true, ...handoff };
  if (needs === false)
    return { ...base, ...once, disposition: 'run', ...(tool.audit ? { audit: true } : {}), ...handoff };
  // Decided without a person (the tool's onApproval, else a standing grant), or undefined: a person decides. After a
  // guardrail's ask, or any predicate that could not decide, neither is asked.
  const decided: Awaited<ReturnType<typeof autoDecision>> =
    needs === true ? await autoDecision(agent, tool, parsed.params, base, req) : {};
  askedBecause ??= decided.askedBecause;
  const auto =
    decided.auto ??
    (needs === true && !askedBecause ? await grantDecision(agent, tool, parsed.params, base, req) : undefined);
  return {
    ...base,
    ...once,
    ...(askedBecause ? { askedBecause } : {}),
    ...(await guarded()),
    ...(auto ? { auto } : await previewed()),
    disposition: 'approval',
    rejectionText,
    wait: await waitTerms(agent, tool, 'approval', base, req),
    ...handoff,
  };
}
