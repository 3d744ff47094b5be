// A call made as a task that no person decides (its tool's rule spares these arguments) runs at once, as any
// ungated call: no run, no round trip to Temporal. The client asked for a task, so it gets one, already ended,
// that this process keeps for DONE_TASK_TTL_MS (the task's ttl says so) and for its principal only (keptTasks.ts). Unlike a gated call's task it does not outlive the gateway: there is nothing to wait for.
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { KeptTasks } from './keptTasks';

export const DONE_TASK_TTL_MS = 10 * 60_000;

export class DoneTasks {
  private readonly kept = new KeptTasks<{ task: Task; result: CallToolResult }>('done-');

  /** Keeps the call's result as a task of this principal's, ended now. */
  add(principal: string, result: CallToolResult, now = Date.now()): Task {
    const at = new Date(now).toISOString();
    const made = (taskId: string) => ({
      task: {
        taskId,
        status: 'completed' as const, // MCP's tasks: failed is a JSON-RPC error; a tool's isError result is still completed
        ttl: DONE_TASK_TTL_MS,
        createdAt: at,
        lastUpdatedAt: at,
      },
      result,
    });
    return this.kept.keep(principal, made, now + DONE_TASK_TTL_MS, now).task;
  }

  /** The principal's task of this id, while it is kept. */
  get(principal: string, taskId: string, now = Date.now()): { task: Task; result: CallToolResult } | undefined {
    return this.kept.get(principal, taskId, now);
  }

  /** The principal's tasks, newest first. */
  list(principal: string, now = Date.now()): Task[] {
    return this.kept.list(principal, now).map(([, done]) => done.task);
  }
}
