// An upstream that hangs (the everything server's long-running operation, past the server's timeoutMs). An approved
// gated call to it may have acted: the call becomes `uncertain`, it is not sent again on its own, and a person says
// what came of it (`countersign resolve --done`), which is what the client gets. An ungated call to it is a JSON-RPC
// error. The same server is upstream twice, once with a prefix: two servers may offer one tool name that way. One
// that crashes (over stdio, SIGKILLed) while an approved call is at it leaves that call uncertain too.
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
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

const SLOW = 'trigger-long-running-operation';
let everything: Spawned;
let gateway: RunningGateway;
let client: Client;

beforeAll(async () => {
  const upstream = await startEverythingServer();
  everything = upstream.process;
  const setup = gatewayFiles();
  const servers = {
    everything: { url: upstream.url, timeoutMs: 1_500 },
    free: { url: upstream.url, timeoutMs: 1_500, prefix: 'free_' },
  };
  const tools = {
    [SLOW]: { needsApproval: true },
    [`free_${SLOW}`]: { needsApproval: false },
    free_echo: { needsApproval: false },
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

/** The kind of `workflowId`'s pending call once it is `kind` (`countersign pending --tool <SLOW>`), or the last seen. */
async function pendingKind(workflowId: string, kind: string): Promise<string> {
  let seen = '';
  for (let i = 0; i < 120 && seen !== kind; i++) {
    const { stdout } = await countersign(['pending', '--tool', SLOW, '--json']);
    seen =
      (JSON.parse(stdout) as Array<{ workflowId: string; kind: string }>).find((r) => r.workflowId === workflowId)
        ?.kind ?? '';
    if (seen !== kind) await new Promise((r) => setTimeout(r, 500));
  }
  return seen;
}

test('an upstream that does not answer after approval makes the call uncertain; a person resolves it', async () => {
  const { task } = await client.request(
    {
      method: 'tools/call',
      params: { name: SLOW, arguments: { duration: 6, steps: 1 }, task: { ttl: 600_000 } },
    },
    CreateTaskResultSchema,
  );
  const workflowId = task.taskId.slice(0, task.taskId.lastIndexOf(':'));
  await countersign(['approve', workflowId, 'call']);
  expect(await pendingKind(workflowId, 'uncertain')).toBe('uncertain');
  const status = await client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema);
  expect(status.status).toBe('input_required');
  await countersign(['resolve', workflowId, 'call', '--done', 'it finished upstream']);
  const result = await client.request(
    { method: 'tasks/result', params: { taskId: task.taskId } },
    CallToolResultSchema,
  );
  expect(result).toMatchObject({ content: [{ type: 'text', text: 'it finished upstream' }], isError: false });
});

test('two upstreams offer one tool name under a prefix; an ungated call to one that hangs is a JSON-RPC error', async () => {
  const names = (await client.listTools()).tools.map((t) => t.name);
  const prefixed = names.filter((n) => n.startsWith('free_'));
  expect(prefixed.length).toBeGreaterThan(5);
  expect(names.filter((n) => !n.startsWith('free_')).map((n) => `free_${n}`)).toEqual(prefixed); // each server's own
  const echo = await client.callTool({ name: 'free_echo', arguments: { message: 'through the prefix' } });
  expect(echo.content).toEqual([{ type: 'text', text: 'Echo: through the prefix' }]);
  const started = Date.now();
  await expect(
    client.callTool({ name: `free_${SLOW}`, arguments: { duration: 6, steps: 1 } }, undefined, { timeout: 30_000 }),
  ).rejects.toThrow(/MCP error -32001: Request timed out/);
  expect(Date.now() - started).toBeLessThan(6_000); // the server's timeoutMs, not the operation's 6 s
  const { stdout } = await countersign(['pending', '--tool', `free_${SLOW}`, '--json']);
  expect(JSON.parse(stdout)).toEqual([]); // nothing booked
});

test('an upstream that crashes during an approved call makes it uncertain, and it is not sent again', async () => {
  const setup = gatewayFiles();
  const servers = { crashy: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } };
  writeFileSync(
    setup.config,
    JSON.stringify({ name: setup.name, servers, tools: { [SLOW]: { needsApproval: true } } }),
  );
  const own = await startGatewayProcess(setup.config);
  const ownClient = await mcpClient(own.url);
  try {
    const { task } = await ownClient.request(
      { method: 'tools/call', params: { name: SLOW, arguments: { duration: 30, steps: 30 }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    const workflowId = task.taskId.slice(0, task.taskId.lastIndexOf(':'));
    await countersign(['approve', workflowId, 'call']);
    const status = async () =>
      (await ownClient.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema)).status;
    for (let i = 0; i < 120 && (await status()) !== 'working'; i++) await new Promise((r) => setTimeout(r, 250));
    expect(await status()).toBe('working'); // sent upstream, which is at it
    await new Promise((r) => setTimeout(r, 1_000));
    const [upstream, ...more] = processesWith(EVERYTHING_SERVER, own.process.child.pid);
    expect(more).toEqual([]);
    process.kill(upstream!, 'SIGKILL');
    expect(await pendingKind(workflowId, 'uncertain')).toBe('uncertain');
    expect(await status()).toBe('input_required');
    expect(await upstreamCalls(workflowId)).toEqual({ scheduled: 1, maxAttempts: 1 }); // once, not again
  } finally {
    await ownClient.close();
    await own.stop();
  }
});
