// Upstream tools that run as tasks, through the gateway: the reference "everything" server's simulate-research-query
// requires one (`execution.taskSupport: "required"`). Gated and approved, its activity creates the task upstream once,
// follows it to its end and answers with its result; cancelled while it runs, the task is cancelled upstream; an
// upstream that dies under it leaves the call uncertain, and no second task is made. Ungated, a client's task is
// forwarded to the upstream as its task, and tasks/get, tasks/result, tasks/cancel and tasks/list reach it there.
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { callAsTask } from '../../gateway/upstreamTasks';
import { ForwardedTasks } from '../../gateway/forwardedTasks';
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { Upstreams } from '../../gateway/upstreams';
import { countersign } from '../support/countersignCli';
import {
  EVERYTHING_SERVER,
  gatewayFiles,
  mcpClient,
  processesWith,
  startGatewayProcess,
  type RunningGateway,
  startEverythingServer,
  upstreamCalls,
} from '../support/gatewayProcess';
import type { Spawned } from '../support/processes';

jest.setTimeout(240_000);

const RESEARCH = 'simulate-research-query'; // four stages of a second each
/** What the everything server logs when its research finds its task cancelled. */
const CANCELLED_UPSTREAM = /Cannot update task \S+ from terminal status ["']?cancelled/;
let everything: Spawned;
let everythingUrl: string;
let gateway: RunningGateway;
let client: Client;

beforeAll(async () => {
  const upstream = await startEverythingServer();
  everything = upstream.process;
  everythingUrl = upstream.url;
  const setup = gatewayFiles();
  const servers = {
    everything: { url: upstream.url },
    free: { url: upstream.url, prefix: 'free_' },
    crashy: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], prefix: 'crashy_' },
  };
  const tools = {
    [RESEARCH]: { needsApproval: true },
    [`crashy_${RESEARCH}`]: { needsApproval: true },
    [`free_${RESEARCH}`]: { needsApproval: false },
  };
  writeFileSync(setup.config, JSON.stringify({ name: setup.name, servers, tools }));
  gateway = await startGatewayProcess(setup.config);
  client = await mcpClient(gateway.url);
});
afterAll(async () => {
  await client?.close();
  await gateway?.stop();
  everything?.kill('SIGTERM');
  await everything?.exited;
});

const text = (r: { content: unknown[] }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
const workflowOf = (task: Task) => task.taskId.slice(0, task.taskId.lastIndexOf(':'));

async function pendingRows(tool: string): Promise<Array<{ workflowId: string }>> {
  const { stdout } = await countersign(['pending', '--tool', tool, '--json']);
  return JSON.parse(stdout) as never;
}

async function startTask(name: string, topic: string): Promise<Task> {
  const params = { name, arguments: { topic }, task: { ttl: 600_000 } };
  const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
  expect(task.status).toBe('input_required');
  return task;
}

/** The gateway task's status once it is `status` (or the last seen). */
async function until(task: Task, status: Task['status']): Promise<Task['status']> {
  let seen: Task['status'] | undefined;
  for (let i = 0; i < 120 && seen !== status; i++) {
    seen = (await client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema)).status;
    if (seen !== status) await new Promise((r) => setTimeout(r, 250));
  }
  return seen!;
}

test('a gated call to a tool that requires a task, approved with the CLI, completes with the upstream’s result', async () => {
  const task = await startTask(RESEARCH, 'tides');
  await countersign(['approve', workflowOf(task), 'call']);
  expect(await until(task, 'completed')).toBe('completed');
  const result = await client.request(
    { method: 'tasks/result', params: { taskId: task.taskId } },
    CallToolResultSchema,
  );
  expect(result.isError).toBeFalsy();
  expect(text(result)).toMatch(/^# Research Report: tides$/m);
  expect(text(result)).toContain('Stage 4: Generating report ✓');
  expect(await upstreamCalls(workflowOf(task))).toEqual({ scheduled: 1, maxAttempts: 1 });
});

test('the same without a task: the client waits, and gets the upstream task’s result', async () => {
  const call = client.callTool({ name: RESEARCH, arguments: { topic: 'moss' } });
  let workflowId: string | undefined;
  for (let i = 0; i < 120 && !workflowId; i++) {
    workflowId = (await pendingRows(RESEARCH))[0]?.workflowId;
    if (!workflowId) await new Promise((r) => setTimeout(r, 500));
  }
  await countersign(['approve', workflowId!, 'call']);
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(text(result as never)).toMatch(/^# Research Report: moss$/m);
  expect(await upstreamCalls(workflowId!)).toEqual({ scheduled: 1, maxAttempts: 1 });
});

test('cancelled while its task runs upstream (the call withdrawn): the task is cancelled there too', async () => {
  // The gateway's activity runs callAsTask with its cancellation signal; a withdrawal reaches a running activity at
  // its next heartbeat, after the research (4 s) would have ended, so the signal is aborted here directly.
  const direct = await mcpClient(everythingUrl);
  try {
    const abort = new AbortController();
    const params = { name: RESEARCH, arguments: { topic: 'lichen' } };
    const called = callAsTask(direct, params, { signal: abort.signal });
    setTimeout(() => abort.abort(new Error('withdrawn')), 1_500);
    await expect(called).rejects.toThrow('withdrawn');
    // The upstream's research, at its next stage, finds its task cancelled (its own words, on its stderr).
    for (let i = 0; i < 40 && !CANCELLED_UPSTREAM.test(everything.output()); i++)
      await new Promise((r) => setTimeout(r, 250));
    expect(everything.output()).toMatch(CANCELLED_UPSTREAM);
  } finally {
    await direct.close();
  }
});

test('an upstream that dies while its task runs leaves the call uncertain, and no second task is made', async () => {
  const task = await startTask(`crashy_${RESEARCH}`, 'ferns');
  await countersign(['approve', workflowOf(task), 'call']);
  expect(await until(task, 'working')).toBe('working');
  await new Promise((r) => setTimeout(r, 1_000)); // the upstream task made and polled
  const [upstream, ...more] = processesWith(EVERYTHING_SERVER, gateway.process.child.pid);
  expect(more).toEqual([]);
  process.kill(upstream!, 'SIGKILL');
  expect(await until(task, 'input_required')).toBe('input_required'); // before a person again
  const { stdout } = await countersign(['pending', '--tool', `crashy_${RESEARCH}`, '--json']);
  const [row] = JSON.parse(stdout) as Array<{ workflowId: string; kind: string; uncertainBecause?: string }>;
  expect(row).toMatchObject({ workflowId: workflowOf(task), kind: 'uncertain' });
  expect(row!.uncertainBecause).toMatch(/the upstream's task \S+ was created, and then/);
  expect(await upstreamCalls(workflowOf(task))).toEqual({ scheduled: 1, maxAttempts: 1 });
});

test('listed: gated, a task may be used; ungated, as the upstream says (required)', async () => {
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === RESEARCH)?.execution?.taskSupport).toBe('optional');
  expect(tools.find((t) => t.name === `free_${RESEARCH}`)?.execution?.taskSupport).toBe('required');
});

test('ungated, a task is forwarded upstream: tasks/get, tasks/result and tasks/list reach it', async () => {
  const params = { name: `free_${RESEARCH}`, arguments: { topic: 'kelp' }, task: { ttl: 60_000 } };
  const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
  expect(task.taskId).toMatch(/^upstream-[0-9a-f-]{36}$/); // the gateway's name for it, not the upstream's
  expect(task.status).toBe('working');
  expect(await pendingRows(`free_${RESEARCH}`)).toEqual([]); // nothing booked
  const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
  expect(await until(task, 'completed')).toBe('completed');
  const result = await client.request(
    { method: 'tasks/result', params: { taskId: task.taskId } },
    CallToolResultSchema,
  );
  expect(text(result)).toMatch(/^# Research Report: kelp$/m);
});

test('ungated, a forwarded task is cancelled upstream by tasks/cancel; a plain call still gets the refusal', async () => {
  const params = { name: `free_${RESEARCH}`, arguments: { topic: 'coral' }, task: { ttl: 60_000 } };
  const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
  const cancelled = await client.request(
    { method: 'tasks/cancel', params: { taskId: task.taskId } },
    CancelTaskResultSchema,
  );
  expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
  expect(await until(task, 'cancelled')).toBe('cancelled'); // as the upstream says
  const plain = { name: `free_${RESEARCH}`, arguments: { topic: 'coral' } };
  await expect(client.request({ method: 'tools/call', params: plain }, CallToolResultSchema)).rejects.toThrow(
    /requires task-based execution/,
  );
});

test("a forwarded task is its principal's only: another's get, result and cancel find nothing", async () => {
  const config = parseGatewayConfig({ name: 'forwarding', servers: { everything: { url: everythingUrl } } });
  const upstreams = await Upstreams.open(config);
  try {
    const forwarded = new ForwardedTasks(upstreams);
    const params = { name: RESEARCH, arguments: { topic: 'reef' } };
    const task = await forwarded.create('ann', 'everything', params, {});
    expect(await forwarded.get('bob', task.taskId)).toBeNull();
    await expect(forwarded.result('bob', task.taskId)).rejects.toThrow(/Task not found/);
    await expect(forwarded.cancel('bob', task.taskId)).rejects.toThrow(/Task not found/);
    expect(await forwarded.list('bob')).toEqual([]);
    expect((await forwarded.get('ann', task.taskId))?.status).toBe('working');
    await forwarded.cancel('ann', task.taskId);
    expect((await forwarded.get('ann', task.taskId))?.status).toBe('cancelled');
  } finally {
    await upstreams.close();
  }
});
