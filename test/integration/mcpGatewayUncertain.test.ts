// An upstream that hangs (the everything server's long-running operation, past the server's timeoutMs). An approved
// gated call to it may have acted: the call becomes `uncertain`, it is not sent again on its own, and a person says
// what came of it (`countersign resolve --done`), which is what the client gets. An ungated call to it is a JSON-RPC
// error. The same server is upstream twice, once with a prefix: two servers may offer one tool name that way.
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { countersign } from '../support/countersignCli';
import {
  gatewayFiles,
  mcpClient,
  startGatewayProcess,
  type RunningGateway,
  startEverythingServer,
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
  let kind = '';
  for (let i = 0; i < 120 && kind !== 'uncertain'; i++) {
    const { stdout } = await countersign(['pending', '--tool', SLOW, '--json']);
    kind =
      (JSON.parse(stdout) as Array<{ workflowId: string; kind: string }>).find((r) => r.workflowId === workflowId)
        ?.kind ?? '';
    if (kind !== 'uncertain') await new Promise((r) => setTimeout(r, 500));
  }
  expect(kind).toBe('uncertain');
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
