// One tool's execute, in the tool activity (runTool): its result as the model will see it, after the tool's output
// guardrails; a failure in the tool's errorText, else the agent's toolErrorFormatter, else Countersign's words.
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../agents/defineAgent';
import type { Tool, ToolContext } from '../agents/defineTool';
import type { CallBase } from '../core/approvals/plannedCall';
import { checkToolOutput } from './toolGuardrailChecks';
import { failureText } from './toolErrorText';

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
