// A gated call's durable run, from the gateway's side: started (or joined: the same principal, tool and arguments
// while one is still open), read for its status, its result, or withdrawn. The run's id is a digest of the three, so
// an identical call finds it again after the gateway restarts; a task id names the run (workflow id and run id).
import { createHash } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { pendingApprovalsQuery } from '../contract/messages';
import type { PendingApproval } from '../contract/runViews';
import {
  ASK_ONLY_SERVER,
  GATEWAY_CALL_ID,
  GATEWAY_WORKFLOW_TYPE,
  type GatewayCallInput,
  type GatewayRunResult,
} from '../core/run/gatewayRuns';

/** The run of a call: its workflow id, and the run of that id this call started or joined. */
export interface CallRun {
  workflowId: string;
  runId: string;
}

/** JSON with its object keys sorted: the same arguments give the same digest, whatever their order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export function workflowIdFor(gateway: string, requester: string, tool: string, args: unknown): string {
  const digest = createHash('sha256')
    .update(canonical([requester, tool, args]))
    .digest('hex')
    .slice(0, 32);
  return `gateway-${gateway}-${digest}`;
}

export const taskIdOf = (run: CallRun) => `${run.workflowId}:${run.runId}`;

/** The workflow ids of this gateway's calls (workflowIdFor): not its approvals API's (`gateway-<name>-api-…`). */
export const callIdPattern = (gateway: string) =>
  new RegExp(`^gateway-${gateway.replace(/[.]/g, '\\.')}-[0-9a-f]{32}$`);

/** The run a task id names, if its id is one of this gateway's calls' (whether an MCP task's: see taskRequester). */
export function runOfTask(gateway: string, taskId: string): CallRun | undefined {
  const at = taskId.lastIndexOf(':');
  const workflowId = taskId.slice(0, at);
  const runId = taskId.slice(at + 1);
  if (at < 0 || !callIdPattern(gateway).test(workflowId) || !/^[\w-]+$/.test(runId)) return undefined;
  return { workflowId, runId };
}

/**
 * A run's memo says it is an MCP task: it names the upstream server it calls. A hook's run has the same id shape
 * but calls nothing (ASK_ONLY_SERVER), and is its hook's, not a task to read, cancel or take the result of.
 */
export const isMcpTask = (memo: Record<string, unknown> | undefined): boolean =>
  typeof memo?.server === 'string' && memo.server !== ASK_ONLY_SERVER;

/** Starts the call's run, or joins the one still open for the same principal, tool and arguments. */
export async function startOrJoin(client: Client, input: GatewayCallInput, args: unknown): Promise<CallRun> {
  const workflowId = workflowIdFor(input.gateway, input.requester, input.tool.name, args);
  try {
    const handle = await client.workflow.start(GATEWAY_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: input.taskQueue,
      args: [input],
      memo: { requester: input.requester, server: input.server }, // who asked; what it calls (isMcpTask)
      workflowIdConflictPolicy: 'USE_EXISTING', // open: join it
      workflowIdReusePolicy: 'ALLOW_DUPLICATE', // closed: a new call, a new run
    });
    return { workflowId, runId: handle.firstExecutionRunId };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const d = await client.workflow.getHandle(workflowId).describe();
    return { workflowId, runId: d.runId };
  }
}

/** Who started the run (its memo), or undefined when no such run exists or it is not an MCP task (isMcpTask). */
export async function taskRequester(client: Client, run: CallRun): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    if (!isMcpTask(d.memo)) return undefined;
    return typeof d.memo?.requester === 'string' ? d.memo.requester : undefined;
  } catch {
    return undefined;
  }
}

/** The task's status as MCP names it; while a person is needed, who decides and where. */
export async function taskStatus(
  client: Client,
  run: CallRun,
  where: (run: CallRun, call?: PendingApproval) => string,
): Promise<Pick<Task, 'status' | 'statusMessage' | 'createdAt' | 'lastUpdatedAt'>> {
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  const d = await handle.describe();
  const times = {
    createdAt: d.startTime.toISOString(),
    lastUpdatedAt: (d.closeTime ?? d.startTime).toISOString(),
  };
  const closed: Record<string, Task['status']> = {
    COMPLETED: 'completed',
    FAILED: 'failed',
    CANCELLED: 'cancelled',
    TERMINATED: 'cancelled',
    TIMED_OUT: 'failed',
    CONTINUED_AS_NEW: 'failed',
  };
  if (d.status.name !== 'RUNNING') return { status: closed[d.status.name] ?? 'failed', ...times };
  const pending = await handle.query(pendingApprovalsQuery).catch(() => [] as PendingApproval[]);
  const call = pending.find((p) => p.callId === GATEWAY_CALL_ID);
  if (call) return { status: 'input_required', statusMessage: where(run, call), ...times };
  return { status: 'working', ...times };
}

/** What the client gets once the run has ended: the upstream's result, or an isError result with a person's words. */
export async function callResult(client: Client, run: CallRun): Promise<CallToolResult> {
  try {
    const ended = (await client.workflow.getHandle(run.workflowId, run.runId).result()) as GatewayRunResult;
    const result = ended.gatewayCall;
    if (result.outcome === 'ran') return result.result as CallToolResult;
    return { content: [{ type: 'text', text: result.text }], isError: result.outcome === 'rejected' };
  } catch (err) {
    const why = err instanceof WorkflowFailedError ? (err.cause?.message ?? err.message) : (err as Error).message;
    return { content: [{ type: 'text', text: `The call did not complete: ${why}` }], isError: true };
  }
}

/** Withdraws the call: the run is cancelled, and a call still waiting is audited cancelled. */
export async function withdraw(client: Client, run: CallRun): Promise<void> {
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  await handle.cancel();
  await handle.result().catch(() => undefined); // settled: tasks/get then says cancelled
}
