// An approved call to an upstream tool that runs as a task (its listing says `execution.taskSupport` "required" or
// "optional"): the task is created upstream once, followed with tasks/get at the pollInterval the upstream gives,
// and its result read with tasks/result, all with the MCP SDK's client calls. How it ends decides what the call's
// activity makes of it (activities/gatewayTool.ts):
// - refused before a task exists (a JSON-RPC error): thrown as is, an answer (nothing ran);
// - ended upstream (completed, failed, cancelled): its result, or an isError result saying how it ended;
// - lost sight of after it was created (the connection failed, the upstream forgot it): UpstreamTaskLost, thrown,
//   so the call becomes `uncertain` and a person decides; it is never created a second time here;
// - the activity was cancelled (the client withdrew the call): tasks/cancel upstream, and the cancellation thrown.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { GatewayToolResult } from '../core/run/gatewayRuns';

/** How long tasks/cancel may take once the call was withdrawn, and the poll interval when the upstream gives none. */
const CANCEL_TIMEOUT_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;

/** The upstream task exists, and the gateway lost sight of it before it ended: it may have acted. */
export class UpstreamTaskLost extends Error {
  override name = 'UpstreamTaskLost';
}

/** Whether an upstream tool, as listed, is called as a task once approved. */
export const runsAsTask = (taskSupport: string | undefined): boolean =>
  taskSupport === 'required' || taskSupport === 'optional';

export async function callAsTask(
  client: Client,
  params: CallToolRequest['params'],
  options: RequestOptions = {},
): Promise<GatewayToolResult> {
  const { signal } = options;
  let task: Task | undefined;
  try {
    task = (await client.request({ method: 'tools/call', params }, CreateTaskResultSchema, { ...options, task: {} }))
      .task;
    for (;;) {
      if (isTerminal(task.status)) break;
      if (task.status === 'input_required') break; // tasks/result delivers what it asks for, and waits for the end
      await sleep(task.pollInterval ?? DEFAULT_POLL_MS, undefined, { signal });
      task = await client.experimental.tasks.getTask(task.taskId, options);
    }
    if (task.status === 'failed' || task.status === 'cancelled')
      return ended(params.name, `its task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
    return (await client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
      options,
    )) as GatewayToolResult;
  } catch (err) {
    if (signal?.aborted) {
      if (task && !isTerminal(task.status))
        await client.experimental.tasks.cancelTask(task.taskId, { timeout: CANCEL_TIMEOUT_MS }).catch(() => undefined);
      throw signal.reason ?? err;
    }
    if (!task) throw err;
    const why = err instanceof Error ? err.message : String(err);
    if (task.status === 'completed')
      return ended(params.name, `its task completed, and its result was not read: ${why}`);
    throw new UpstreamTaskLost(`the upstream's task ${task.taskId} was created, and then: ${why}`);
  }
}

const ended = (tool: string, how: string): GatewayToolResult => ({
  content: [{ type: 'text', text: `${tool}: ${how}` }],
  isError: true,
});
