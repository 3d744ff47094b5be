// A call no person decides (an ungated tool, or one whose rule spares it) that the client makes as a task, to an
// upstream tool that runs as one: forwarded upstream as a task, with no Temporal round trip, and the client's
// tasks/get, tasks/result, tasks/cancel and tasks/list for it routed back to that upstream. The client knows it by a
// name of the gateway's (`upstream-<uuid>`: never a gated call's run nor a done task's, whatever the upstream's ids
// look like), which this process keeps, for its principal only, up to the upstream task's ttl (keptTasks.ts). Like the upstream's own task it does not outlive the gateway's connection to it.
import {
  type CallToolRequest,
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Upstreams } from './upstreams';
import { KeptTasks } from './keptTasks';

/** How long a forwarded task is kept when its upstream gives it no ttl. */
const KEEP_MS = 60 * 60_000;

interface Forwarded {
  taskId: string;
  server: string;
  upstreamId: string;
}

export class ForwardedTasks {
  private readonly tasks = new KeptTasks<Forwarded>('upstream-');

  constructor(private readonly upstreams: Upstreams) {}

  /** Sends the call upstream as a task; the client's view of it, under the gateway's name for it. */
  async create(
    principal: string,
    server: string,
    params: CallToolRequest['params'],
    options: RequestOptions,
    now = Date.now(),
  ): Promise<Task> {
    const { task: creation, ...call } = params;
    const { client } = this.upstreams.server(server);
    const { task } = await client.request({ method: 'tools/call', params: call }, CreateTaskResultSchema, {
      ...options,
      task: creation ?? {},
    });
    const expires = now + (task.ttl ?? KEEP_MS);
    const kept = this.tasks.keep(principal, (taskId) => ({ taskId, server, upstreamId: task.taskId }), expires, now);
    return { ...task, taskId: kept.taskId };
  }

  /** Whether the id is one of these (whoever's it is): the gated calls' store need not look it up in Temporal. */
  names(taskId: string): boolean {
    return this.tasks.names(taskId);
  }

  /** The principal's task of this id as its upstream says now; null when it is not theirs or the upstream forgot it. */
  async get(principal: string, taskId: string): Promise<Task | null> {
    const own = this.own(principal, taskId);
    if (!own) return null;
    const task = await this.client(own)
      .experimental.tasks.getTask(own.upstreamId)
      .catch(() => null);
    return task && { ...task, taskId };
  }

  async result(principal: string, taskId: string): Promise<Result> {
    const own = this.own(principal, taskId);
    if (!own) throw new Error(`Task not found: ${taskId}`);
    return this.client(own).experimental.tasks.getTaskResult(own.upstreamId, CallToolResultSchema);
  }

  async cancel(principal: string, taskId: string): Promise<void> {
    const own = this.own(principal, taskId);
    if (!own) throw new Error(`Task not found: ${taskId}`);
    await this.client(own).experimental.tasks.cancelTask(own.upstreamId);
  }

  /** The principal's tasks, newest first, as their upstreams say now (those they forgot left out). */
  async list(principal: string, now = Date.now()): Promise<Task[]> {
    const ids = this.tasks.list(principal, now).map(([id]) => id);
    const tasks = await Promise.all(ids.map((id) => this.get(principal, id)));
    return tasks.filter((t): t is Task => t !== null);
  }

  private own(principal: string, taskId: string): Forwarded | undefined {
    return this.tasks.get(principal, taskId);
  }

  private client(f: Forwarded) {
    return this.upstreams.server(f.server).client;
  }
}
