// A call made as a task that no person decides (its tool's rule spares these arguments) runs at once, as any
// ungated call: no run, no round trip to Temporal. The client asked for a task, so it gets one, already ended,
// that this process keeps for TTL_MS (the task's ttl says so) and for its principal only; at most MAX_TASKS, the
// oldest forgotten first. Unlike a gated call's task it does not outlive the gateway: there is nothing to wait for.
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';

export const DONE_TASK_TTL_MS = 10 * 60_000;
const MAX_TASKS = 1_000;
const PREFIX = 'done-';

interface Done {
  principal: string;
  task: Task;
  result: CallToolResult;
  expires: number;
}

export class DoneTasks {
  private readonly tasks = new Map<string, Done>(); // in the order they ended

  /** Keeps the call's result as a task of this principal's, ended now. */
  add(principal: string, result: CallToolResult, now = Date.now()): Task {
    this.forget(now);
    const at = new Date(now).toISOString();
    const task: Task = {
      taskId: `${PREFIX}${randomUUID()}`,
      status: 'completed', // MCP's tasks: failed is a JSON-RPC error; a tool's isError result is still completed
      ttl: DONE_TASK_TTL_MS,
      createdAt: at,
      lastUpdatedAt: at,
    };
    this.tasks.set(task.taskId, { principal, task, result, expires: now + DONE_TASK_TTL_MS });
    while (this.tasks.size > MAX_TASKS) this.tasks.delete(this.tasks.keys().next().value!);
    return task;
  }

  /** The principal's task of this id, while it is kept. */
  get(principal: string, taskId: string, now = Date.now()): Omit<Done, 'principal' | 'expires'> | undefined {
    if (!taskId.startsWith(PREFIX)) return undefined;
    this.forget(now);
    const done = this.tasks.get(taskId);
    return done?.principal === principal ? { task: done.task, result: done.result } : undefined;
  }

  /** The principal's tasks, newest first. */
  list(principal: string, now = Date.now()): Task[] {
    this.forget(now);
    return [...this.tasks.values()]
      .filter((d) => d.principal === principal)
      .map((d) => d.task)
      .reverse();
  }

  private forget(now: number): void {
    for (const [id, done] of this.tasks) {
      if (done.expires > now) break; // the rest ended later
      this.tasks.delete(id);
    }
  }
}
