// The text the model sees when a call fails (unknown tool, invalid arguments, rejected, failed while running): the
// tool's own errorText for its failures, else the agent's toolErrorFormatter when it answers, else Countersign's.
// Planning and runTool both use it.
import { log } from '@temporalio/activity';
import type { Agent, ToolErrorKind } from '../agents/defineAgent';
import type { Tool } from '../agents/defineTool';
import type { ToolFailure } from '../agents/toolGuardrails';
import type { CallBase } from '../core/approvals/plannedCall';

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

/**
 * The text the model sees for a failure of `tool` (it threw, its arguments were invalid, it ran past its timeout): the
 * tool's errorText when it answers (it wins), else formatError's. A tool's timeout counts as tool_failed for the agent.
 */
export async function failureText(
  agent: Agent,
  tool: Tool,
  failure: { kind: ToolFailure['kind']; message: string },
  call: CallBase,
  defaultMessage: string,
  run: { runId: string; context: Record<string, unknown> },
): Promise<string> {
  const kind = failure.kind === 'timed_out' ? 'tool_failed' : failure.kind;
  const formatted = await formatError(agent, kind, call, defaultMessage, run.context);
  if (!tool.errorText) return formatted;
  try {
    const text = await tool.errorText(
      { ...failure, defaultMessage: formatted },
      { runId: run.runId, agentName: agent.name, callId: call.callId, toolName: call.toolName, context: run.context },
    );
    return typeof text === 'string' && text.length > 0 ? text : formatted;
  } catch (err) {
    log.warn('errorText threw; using the default message', { tool: tool.name, error: String(err) });
    return formatted;
  }
}
