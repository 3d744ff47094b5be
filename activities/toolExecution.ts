// One tool's execute, in the tool activity (runTool): its result as the model will see it, after the tool's output
// guardrails; a failure in the tool's errorText, else the agent's toolErrorFormatter, else Countersign's words.
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../agents/defineAgent';
import type { Tool, ToolContext } from '../agents/defineTool';
import type { CallBase } from '../core/approvals/plannedCall';
import { checkToolOutput } from './toolGuardrailChecks';
import { failureText } from './toolErrorText';
import { Failure } from '../contract/failureTypes';
import { changedSince } from './callFingerprint';
import { mcpTool } from './mcp/mcpTools';
import { parseArguments } from './toolArguments';
import type { RunToolRequest, RunToolResult } from './agentActivities';

/** Runs the tool: `ok` false when it threw (the model is told). A retryable ApplicationFailure asks Temporal to retry. */
export async function executeTool(
  agent: Agent,
  tool: Tool,
  params: Record<string, unknown>,
  ctx: ToolContext,
  call: CallBase,
  /** COUNTERSIGN_PREDICATE_TIMEOUT (ms): the most each output guardrail may take. */
  limitMs: number,
): Promise<{ output: string; ok: boolean }> {
  let result: unknown;
  try {
    result = await tool.execute!(params, ctx);
  } catch (err) {
    // A tool may ask Temporal to retry it by throwing a retryable ApplicationFailure; other errors go to the model.
    if (err instanceof ApplicationFailure && !err.nonRetryable) throw err;
    const message = err instanceof Error ? err.message : String(err);
    log.warn('tool failed', { tool: call.toolName, callId: call.callId, error: message });
    const text = `An error occurred while running the tool ${call.toolName}: ${message}`;
    const run = { runId: ctx.runId, context: ctx.context };
    return { output: await failureText(agent, tool, { kind: 'tool_failed', message }, call, text, run), ok: false };
  }
  const output = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  if (!tool.outputGuardrails?.length) return { output, ok: true };
  const toolCall = { callId: call.callId, name: call.toolName, arguments: call.arguments };
  const data = { arguments: params, toolCall, context: ctx.context, agentName: agent.name, runId: ctx.runId };
  return { output: await checkToolOutput(tool, data, result, output, limitMs), ok: true };
}

/** Under a heartbeat timeout (a tool that is not idempotent), beats at a third of it: a dead worker is noticed then. */
export function beatWhileRunning(): () => void {
  const ctx = Context.current();
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  if (!timeoutMs) return () => {};
  const timer = setInterval(() => ctx.heartbeat(), Math.max(1_000, timeoutMs / 3));
  return () => clearInterval(timer);
}

/** One attempt at an approved or planned call (runTool): its fingerprint checked, its sensitive context resolved, the tool run. */
export async function toolAttempt(
  agent: Agent,
  req: RunToolRequest,
  predicateTimeoutMs: number,
): Promise<RunToolResult> {
  const base: CallBase = { callId: req.callId, toolName: req.toolName, arguments: req.arguments };
  const tool = req.mcpTool ? mcpTool(agent, req.mcpTool) : agent.tool(req.toolName);
  const parsed = tool ? parseArguments(tool, req.arguments) : undefined;
  if (!tool || !parsed?.ok || !tool.execute) {
    // Planned calls were validated already; reaching here means the agent changed under a running call.
    const why = !tool
      ? `tool ${req.toolName} is not on agent ${agent.name}@${agent.version}`
      : !tool.execute
        ? `tool ${req.toolName} is executed outside the worker`
        : `arguments no longer valid: ${(parsed as { problem: string }).problem}`;
    throw ApplicationFailure.create({ type: Failure.ToolUnavailable, message: why, nonRetryable: true });
  }
  // The decision was given for the target as it was: if it changed, nothing runs and people decide again.
  const shared = { runId: req.runId, agentName: agent.name, callId: req.callId, context: req.context };
  const stale =
    req.fingerprint !== undefined && tool.fingerprint
      ? await changedSince(tool, parsed.params, shared, req.fingerprint)
      : undefined;
  if (stale) return { output: '', ok: false, stale };
  // Resolved here, per call, and never returned: sensitive context stays out of history.
  const sensitive = agent.sensitiveContext
    ? await agent.sensitiveContext({ runId: req.runId, agentName: agent.name, context: req.context })
    : {};
  const ctx = { ...shared, idempotencyKey: `${req.runId}:${req.callId}`, sensitive };
  const stopBeating = beatWhileRunning();
  try {
    return await executeTool(agent, tool, parsed.params, ctx, base, predicateTimeoutMs); // its output guardrails, its errorText
  } finally {
    stopBeating();
  }
}
