// MCP servers as an agent's tool sources, against the project's own MCP server over stdio and Streamable HTTP: only
// gated tools pause; an approved call reaches the server once (its ledger counts), a rejected one never; always-rules
// hold per server and tool; the listing is frozen at run start; a dead server ends as a tool error; name clashes and
// bad definitions are refused with one line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry, defineAgent } from '../../agents';
import { Runner } from '../../client';
import { demoStdioServer, type McpHttpServer, readLedger, startMcpHttpServer } from '../../devtools/demoMcpServer';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const dir = mkdtempSync(join(tmpdir(), 'countersign-mcp-agents-'));
const db = { ledger: join(dir, 'db.jsonl'), toolsFile: join(dir, 'db-tools.json') };
const wh = { ledger: join(dir, 'warehouse.jsonl'), toolsFile: join(dir, 'warehouse-tools.json') };
let warehouse: McpHttpServer;
let flaky: McpHttpServer;
let h: Harness;
let runner: Runner;

beforeAll(async () => {
  warehouse = await startMcpHttpServer(wh);
  flaky = await startMcpHttpServer({ ledger: join(dir, 'flaky.jsonl') });
  const warehouseOps = defineAgent({
    name: 'warehouse-ops',
    instructions: 'test',
    tools: [],
    mcpServers: [{ name: 'warehouse', url: warehouse.url, requireApproval: 'always' }],
  });
  const dbOps = defineAgent({
    name: 'db-ops',
    instructions: 'test',
    tools: [
      warehouseOps.asTool({
        toolName: 'ask_warehouse',
        toolDescription: 'Ask the warehouse team',
        shareAlwaysRules: true,
      }),
    ],
    mcpServers: [
      {
        ...demoStdioServer('db', { COUNTERSIGN_MCP_LEDGER: db.ledger, COUNTERSIGN_MCP_TOOLS_FILE: db.toolsFile }),
        requireApproval: {
          always: { toolNames: ['drop_table'] },
          never: { toolNames: ['list_tables', 'fail_always'] },
        },
      },
    ],
  });
  const flakyOps = defineAgent({
    name: 'flaky-ops',
    instructions: 'test',
    tools: [],
    mcpServers: [{ name: 'flaky', url: flaky.url, tools: ['drop_table'] }],
  });
  const clash = defineAgent({
    name: 'clash-ops',
    instructions: 'test',
    tools: [],
    mcpServers: [
      { ...demoStdioServer('db'), requireApproval: 'never' },
      { name: 'warehouse', url: warehouse.url },
    ],
  });
  h = await startHarness({ registry: new AgentRegistry([dbOps, warehouseOps, flakyOps, clash]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await warehouse?.close();
  await flaky?.close();
});

const call = (name: string, args: Record<string, unknown>, callId: string) => ({ name, arguments: args, callId });
const keysOf = (ledger: string, tool: string) =>
  readLedger(ledger)
    .filter((l) => l.tool === tool)
    .map((l) => l.idempotencyKey);

test('only the gated tool pauses; approved runs once on the server; always holds for that server only', async () => {
  const id = newId('mcp');
  h.model.script(id, [
    { toolCalls: [call('list_tables', {}, 'l1'), call('drop_table', { table: 'users' }, 'd1')] },
    {
      toolCalls: [call('drop_table', { table: 'orders' }, 'd2'), call('ask_warehouse', { input: 'drop stock' }, 'w1')],
    },
    { text: 'done' },
  ]);
  h.model.script(`${id}/w1`, [
    { toolCalls: [call('drop_table', { table: 'stock' }, 'd3')] },
    { text: 'warehouse done' },
  ]);

  const paused = await runner.run('db-ops', 'clean up', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName, i.mcpServer])).toEqual([['d1', 'drop_table', 'db']]);
  expect(keysOf(db.ledger, 'list_tables')).toEqual([`${id}:l1`]); // never gated: ran at once
  expect(keysOf(db.ledger, 'drop_table')).toEqual([]);

  // Approve always: d2 (same server, same tool) is approved by the rule; the warehouse's drop_table still waits.
  const next = await runner.run('db-ops', paused.toState().approve('d1', { alwaysApprove: true, approver: 'ann' }));
  expect(next.interruptions.map((i) => [i.callId, i.mcpServer, i.path])).toEqual([
    ['d3', 'warehouse', 'ask_warehouse > drop_table'],
  ]);
  expect(keysOf(db.ledger, 'drop_table')).toEqual([`${id}:d1`, `${id}:d2`]);
  expect(keysOf(wh.ledger, 'drop_table')).toEqual([]);

  const done = await runner.run('db-ops', next.toState().approve('d3', { approver: 'ann' }));
  expect(done.finalOutput).toBe('done');
  expect(keysOf(wh.ledger, 'drop_table')).toEqual([`${id}/w1:d3`]);
  const audit = await runner.audit(id);
  expect(audit.map((a) => [a.callId, a.decision, a.via])).toEqual([
    ['d1', 'approved', 'update'],
    ['d2', 'auto_approved', 'rule'],
  ]);
  expect((await runner.audit(`${id}/w1`)).map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['d3', 'approved', 'ann'],
  ]); // the sub-run's own book
});

test('a rejected call never reaches the server; a tool error from the server reaches the model', async () => {
  const id = newId('mcp-reject');
  h.model.script(id, [
    { toolCalls: [call('drop_table', { table: 'payments' }, 'd1'), call('fail_always', {}, 'f1')] },
    { text: 'ok' },
  ]);
  const paused = await runner.run('db-ops', 'drop payments', { workflowId: id });
  const done = await runner.run('db-ops', paused.toState().reject('d1', { message: 'Not payments.' }));
  expect(done.finalOutput).toBe('ok');
  expect(
    readLedger(db.ledger)
      .filter((l) => l.idempotencyKey?.startsWith(`${id}:`))
      .map((l) => l.tool),
  ).toEqual(['fail_always']);
  const outputs = (await runner.describe(id)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs).toEqual([
    { type: 'function_call_output', callId: 'd1', output: 'Not payments.' },
    {
      type: 'function_call_output',
      callId: 'f1',
      output: expect.stringMatching(/^An error occurred while running the tool fail_always: .+/),
    },
  ]);
});

test('the listing is frozen at run start: a tool the server drops mid-run is still offered, and its call is a tool error', async () => {
  const id = newId('mcp-frozen');
  writeFileSync(wh.toolsFile, JSON.stringify({ hide: [] }));
  h.model.script(id, [
    { toolCalls: [call('drop_table', { table: 'a' }, 'd1')] },
    { toolCalls: [call('list_tables', {}, 'l1')] },
    { text: 'ok' },
  ]);
  const paused = await runner.run('warehouse-ops', 'go', { workflowId: id });
  writeFileSync(wh.toolsFile, JSON.stringify({ hide: ['list_tables'] })); // the server changes its mind mid-run
  const next = await runner.run('warehouse-ops', paused.toState().approve('d1'));
  const lastTurn = await eventually(async () => {
    await runner.run('warehouse-ops', (await runner.nextPause(id)).toState().approve('l1')).catch(() => undefined);
    const d = await runner.describe(id);
    return d.status === 'Completed' ? d : undefined;
  });
  expect(next.status).toBe('AwaitingApproval');
  const offered = h.model.requests.filter((r) => r.runId === id).map((r) => r.tools.sort().join(','));
  expect(offered).toEqual([
    'describe_call,drop_table,fail_always,list_tables',
    'describe_call,drop_table,fail_always,list_tables',
    'describe_call,drop_table,fail_always,list_tables',
  ]);
  expect(lastTurn.items.find((i) => i.type === 'function_call_output' && i.callId === 'l1')).toMatchObject({
    output: expect.stringContaining('unknown tool: list_tables'),
  });
  writeFileSync(wh.toolsFile, JSON.stringify({ hide: [] }));
});

test('a dead server is retried like any activity, then answered as a tool error', async () => {
  const id = newId('mcp-dead');
  h.model.script(id, [{ toolCalls: [call('drop_table', { table: 'x' }, 'd1')] }, { text: 'gave up' }]);
  const paused = await runner.run('flaky-ops', 'go', { workflowId: id });
  await flaky.close(); // the server dies while the call waits for a person
  const done = await runner.run('flaky-ops', paused.toState().approve('d1'));
  expect(done.finalOutput).toBe('gave up');
  const output = (await runner.describe(id)).items.find((i) => i.type === 'function_call_output');
  expect(output).toMatchObject({
    output: expect.stringMatching(
      /^An error occurred while running the tool drop_table: MCP server "flaky" did not answer after 3 tries: /,
    ),
  });
});

test('two servers offering one tool name refuse the run at start; bad server definitions are refused at once', async () => {
  await expect(runner.run('clash-ops', 'go', { workflowId: newId('mcp-clash') })).rejects.toThrow(
    'agent clash-ops: tool "list_tables" is offered by MCP server "warehouse" and by MCP server "db"; offer it from one only (the server\'s `tools` list)',
  );
  expect(() =>
    defineAgent({
      name: 'x',
      instructions: 'x',
      tools: [],
      mcpServers: [
        { name: 'a', url: 'http://127.0.0.1:1/mcp' },
        { name: 'a', url: 'http://127.0.0.1:2/mcp' },
      ],
    }),
  ).toThrow('agent x: two MCP servers are named "a"');
  expect(() =>
    defineAgent({
      name: 'x',
      instructions: 'x',
      tools: [],
      mcpServers: [{ name: 'a', url: 'http://127.0.0.1:1/mcp', requireApproval: 'sometimes' as never }],
    }),
  ).toThrow(/^agent x: MCP server "a": requireApproval /);
});
