// The MCP SDK's task store, answered from Temporal: a task is a gated call's durable run (its id names the run), so
// tasks/get, tasks/result and tasks/cancel answer after the gateway restarts, from any gateway process. A session's
// store answers only about runs its principal started: another principal's task is "not found", and tasks/list
// lists only its own (taskList.ts). A task no person decided is kept in the process instead (doneTasks.ts), or is
// an upstream's task, forwarded (forwardedTasks.ts).
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { type CallRun, callResult, runOfTask, taskRequester, taskIdOf, taskStatus, withdraw } from './gatedCalls';
import { ownTasks } from './taskList';
import { whereToDecide } from './gatedWaits';
import type { GatewayCore } from './gatewayServer';

/** How often a client is asked to poll a task (ms). */
export const POLL_INTERVAL_MS = 1_000;

export class CallTaskStore implements TaskStore {
  constructor(
    private readonly core: GatewayCore,
    private readonly principal: string,
  ) {}

  /** This principal's run of the task, or undefined (not one of this gateway's MCP tasks, no such run, someone else's). */
  private async own(taskId: string): Promise<CallRun | undefined> {
    const run = runOfTask(this.core.config.name, taskId);
    if (!run) return undefined;
    return (await taskRequester(this.core.client, run)) === this.principal ? run : undefined;
  }

  createTask(): Promise<Task> {
    // The gateway's tools/call handler starts the run and answers with its task itself.
    return Promise.reject(new Error("tasks are created by the gateway's tools/call handler"));
  }

  async getTask(taskId: string): Promise<Task | null> {
    if (this.core.forwarded.names(taskId)) return this.core.forwarded.get(this.principal, taskId);
    const done = this.core.done.get(this.principal, taskId);
    if (done) return done.task;
    const run = await this.own(taskId);
    if (!run) return null;
    const status = await taskStatus(this.core.client, run, whereToDecide(this.core));
    return { taskId, ttl: null, pollInterval: POLL_INTERVAL_MS, ...status };
  }

  async storeTaskResult(): Promise<void> {
    // The run keeps its result: nothing to store.
  }

  async getTaskResult(taskId: string): Promise<Result> {
    if (this.core.forwarded.names(taskId)) return this.core.forwarded.result(this.principal, taskId);
    const done = this.core.done.get(this.principal, taskId);
    if (done) return done.result;
    const run = await this.own(taskId);
    if (!run) throw new Error(`Task not found: ${taskId}`);
    return callResult(this.core.client, run);
  }

  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (this.core.forwarded.names(taskId)) {
      if (status === 'cancelled') await this.core.forwarded.cancel(this.principal, taskId);
      return;
    }
    const run = await this.own(taskId);
    if (!run) throw new Error(`Task not found: ${taskId}`);
    if (status === 'cancelled') await withdraw(this.core.client, run);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await ownTasks(this.core, this.principal, cursor);
    const where = whereToDecide(this.core);
    const tasks: Task[] = page.runs.map(({ run, status, startTime, closeTime, waiting }) => ({
      taskId: taskIdOf(run),
      ttl: null,
      pollInterval: POLL_INTERVAL_MS,
      status,
      ...(waiting ? { statusMessage: where(run) } : {}),
      createdAt: startTime.toISOString(),
      lastUpdatedAt: (closeTime ?? startTime).toISOString(),
    }));
    // Calls no person decided (doneTasks.ts, forwardedTasks.ts) are listed on the first page, before the runs.
    if (cursor === undefined)
      tasks.unshift(...(await this.core.forwarded.list(this.principal)), ...this.core.done.list(this.principal));
    return { tasks, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}
