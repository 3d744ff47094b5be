// The text the model sees when a call fails (unknown tool, invalid arguments, rejected, failed while running): the
// agent's own toolErrorFormatter when it answers, else Countersign's. Planning and runTool both use it.
import { log } from '@temporalio/activity';
import type { Agent, ToolErrorKind } from '../agents/defineAgent';
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
