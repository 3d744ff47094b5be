// A tool's own timeout (defineTool timeout), as the run's agent snapshot recorded it: the tool activity's
// start-to-close timeout for that tool, and past it (its retries spent) an idempotent tool fails to the model with
// the text planned for it, and the run goes on. Tools without one take the run's toolTimeout path, unchanged.
import { ActivityFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import type { PlannedCall } from '../core/approvals/plannedCall';

/** The tool's own timeout; undefined for every tool defined without one (and for MCP tools). */
export function toolTimeoutOf(agent: AgentSnapshot | undefined, toolName: string): string | undefined {
  return agent?.tools.find((t) => t.name === toolName && !t.mcpServer)?.timeout;
}

/** What the model gets for a call of a tool with a timeout whose last attempt ran past it; undefined otherwise. */
export function timedOutAnswer(agent: AgentSnapshot | undefined, call: PlannedCall, err: unknown): string | undefined {
  const timeout = toolTimeoutOf(agent, call.toolName);
  if (!timeout || !(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  if (!(err.cause instanceof TimeoutFailure) || err.cause.timeoutType === 'HEARTBEAT') return undefined;
  return call.timedOutText ?? `Tool ${call.toolName} did not finish within ${timeout}.`;
}
