// The Agents SDK's other tool kinds, built with the SDK's own factories on an SDK Agent and mapped by fromOpenAIAgents
// (mapSdkToolKind / mapMcpServers), through the real workflow on the dev server: the team's Shell runs once, after approval, in the tool activity; the
// team's Editor applies an approved operation with the run's context; an MCPServerStdio's tools are listed and called
// by Countersign (the demo server's ledger counts what reached it), gated per the server's requireApproval; hosted
// tools and a hosted MCP server go out on the Responses API as the SDK sends them, the provider's approval request
// decided by a person.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from '@openai/agents';
import { fromOpenAIAgents } from '../../adapters/openaiAgents';
import { AgentRegistry } from '../../agents';
import { Runner } from '../../client';
import { demoStdioServer, type McpHttpServer, readLedger, startMcpHttpServer } from '../../devtools/demoMcpServer';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const dir = mkdtempSync(join(tmpdir(), 'countersign-sdk-tools-'));
const ledger = join(dir, 'db.jsonl');

// The team's Shell: records each action; pretends to run it.
const shellRuns: Array<{ commands: string[] }> = [];
const shell: sdk.Shell = {
  run: async (action) => {
    shellRuns.push({ commands: [...action.commands] });
    return {
      output: action.commands.map((c) => ({ stdout: `ran: ${c}`, stderr: '', outcome: { type: 'exit', exitCode: 0 } })),
    };
  },
};
// The team's Editor: records each operation and the run context it got.
const edits: Array<{ op: sdk.ApplyPatchOperation; context: unknown }> = [];
const record = async (op: sdk.ApplyPatchOperation, ctx?: { runContext: { context: unknown } }) => {
  edits.push({ op, context: ctx?.runContext.context });
  return { status: 'completed' as const, output: `ok ${op.path}` };
};
const editor: sdk.Editor = { createFile: record, updateFile: record, deleteFile: record };

const db = demoStdioServer('db', { COUNTERSIGN_MCP_LEDGER: ledger });
// The team's agent as the SDK builds it; fromOpenAIAgents maps it (its tools through mapSdkToolKind, its servers
// through mapMcpServers).
const sdkAgent = new sdk.Agent({
  name: 'sdk-tools',
  instructions: 'test',
  tools: [
    sdk.shellTool({ shell, needsApproval: async (_rc, action) => action.commands.some((c) => c.startsWith('rm')) }),
    sdk.applyPatchTool({ editor, needsApproval: true }),
    sdk.webSearchTool({ searchContextSize: 'low' }),
    sdk.hostedMcpTool({
      serverLabel: 'gitmcp',
      serverUrl: 'https://gitmcp.example/docs',
      requireApproval: { never: { toolNames: ['search_docs'] } },
    }),
  ],
  mcpServers: [
    new sdk.MCPServerStdio({
      name: db.name,
      command: (db as { command: string }).command,
      args: (db as { args: string[] }).args,
      env: (db as { env: Record<string, string> }).env,
      toolFilter: sdk.createMCPToolStaticFilter({ allowed: ['list_tables', 'drop_table'] }),
      requireApproval: { never: { toolNames: ['list_tables'] } },
    } as ConstructorParameters<typeof sdk.MCPServerStdio>[0]),
  ],
});
const agents = fromOpenAIAgents(sdkAgent);

const httpLedger = join(dir, 'http.jsonl');
let http: McpHttpServer;
let h: Harness;
let runner: Runner;
beforeAll(async () => {
  http = await startMcpHttpServer({ ledger: httpLedger });
  // An agent whose server speaks Streamable HTTP, with no requireApproval: its tools run as in the SDK, ungated.
  const httpAgent = new sdk.Agent({
    name: 'sdk-http',
    instructions: 'test',
    mcpServers: [
      new sdk.MCPServerStreamableHttp({
        name: 'web-db',
        url: http.url,
        requestInit: { headers: { 'X-Team': 'docs' } },
      }),
    ],
  });
  h = await startHarness({ registry: new AgentRegistry([...agents, ...fromOpenAIAgents(httpAgent)]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await http?.close();
});

const call = (name: string, args: Record<string, unknown>, callId: string) => ({ name, arguments: args, callId });
const outputsOf = async (id: string) =>
  Object.fromEntries(
    (await runner.describe(id)).items.flatMap((i) => (i.type === 'function_call_output' ? [[i.callId, i.output]] : [])),
  );

test("shell: the SDK's predicate lets ls run at once; rm waits for a person, then the team's Shell runs it once", async () => {
  const id = newId('sdk-shell');
  shellRuns.length = 0;
  h.model.script(id, [
    { toolCalls: [call('shell', { commands: ['ls'] }, 's1')] },
    { toolCalls: [call('shell', { commands: ['rm old.txt'] }, 's2')] },
    { text: 'cleaned' },
  ]);
  const paused = await runner.run('sdk-tools', 'clean up', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName])).toEqual([['s2', 'shell']]);
  expect(shellRuns).toEqual([{ commands: ['ls'] }]); // rm has not run

  const done = await runner.run('sdk-tools', paused.state.approve('s2', { approver: 'ann' }));
  expect(done.finalOutput).toBe('cleaned');
  expect(shellRuns).toEqual([{ commands: ['ls'] }, { commands: ['rm old.txt'] }]);
  const outputs = await outputsOf(id);
  expect(outputs.s2).toBe('$ rm old.txt\nexit code: 0\nstdout:\nran: rm old.txt\nstderr: (empty)');
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.approver])).toEqual([['s2', 'approved', 'ann']]);
});

test("apply_patch: nothing is edited before approval; the team's Editor then gets the operation and the run's context", async () => {
  const id = newId('sdk-patch');
  edits.length = 0;
  const op = { type: 'create_file', path: 'notes/hello.txt', diff: '+hello' };
  h.model.script(id, [{ toolCalls: [call('apply_patch', { operations: [op] }, 'p1')] }, { text: 'written' }]);
  const paused = await runner.run('sdk-tools', 'write it', { workflowId: id, context: { team: 'docs' } });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName])).toEqual([['p1', 'apply_patch']]);
  expect(edits).toEqual([]);

  const done = await runner.run('sdk-tools', paused.state.approve('p1', { approver: 'ann' }));
  expect(done.finalOutput).toBe('written');
  expect(edits).toEqual([{ op, context: { team: 'docs' } }]);
  expect(await outputsOf(id)).toEqual({ p1: 'created notes/hello.txt: ok notes/hello.txt' });
});

test('MCPServerStdio: Countersign lists and calls the server; list_tables runs at once, drop_table waits for a person', async () => {
  const id = newId('sdk-mcp');
  h.model.script(id, [
    { toolCalls: [call('list_tables', {}, 'm1')] },
    { toolCalls: [call('drop_table', { table: 'logs' }, 'm2')] },
    { text: 'dropped' },
  ]);
  const paused = await runner.run('sdk-tools', 'tidy the db', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName])).toEqual([['m2', 'drop_table']]);
  expect(readLedger(ledger).map((l) => l.tool)).toEqual(['list_tables']);

  const done = await runner.run('sdk-tools', paused.state.approve('m2', { approver: 'ann' }));
  expect(done.finalOutput).toBe('dropped');
  expect(readLedger(ledger).map((l) => [l.tool, l.arguments])).toEqual([
    ['list_tables', {}],
    ['drop_table', { table: 'logs' }],
  ]);
  // The server's tools the model was offered: the SDK filter's two, beside the agent's own.
  const first = h.model.requests.find((r) => r.runId === id)!.body as { tools: Array<{ name?: string }> };
  const names = first.tools.flatMap((t) => (t.name ? [t.name] : []));
  expect(names).toEqual(expect.arrayContaining(['shell', 'apply_patch', 'list_tables', 'drop_table']));
  expect(names).not.toContain('describe_call');
});

test('MCPServerStreamableHttp: read from the instance, its tools run ungated as the SDK runs them', async () => {
  const id = newId('sdk-http');
  h.model.script(id, [{ toolCalls: [call('list_tables', {}, 'w1')] }, { text: 'listed' }]);
  const done = await runner.run('sdk-http', 'what tables?', { workflowId: id });
  expect([done.finalOutput, done.interruptions.length]).toEqual(['listed', 0]);
  expect(readLedger(httpLedger).map((l) => [l.tool, l.idempotencyKey])).toEqual([['list_tables', `${id}:w1`]]);
  expect((await outputsOf(id)).w1).toBe('customers\norders\ninvoices');
});

test('hosted tools and hosted MCP go out as the SDK sends them; the provider asks, a person decides', async () => {
  const id = newId('sdk-hosted');
  h.model.script(id, [
    { mcpApprovalRequests: [{ id: 'mcpr_1', serverLabel: 'gitmcp', name: 'delete_page', arguments: { page: 'x' } }] },
    { text: 'kept' },
  ]);
  const paused = await runner.run('sdk-tools', 'tidy the docs', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName, i.mcpServer])).toEqual([
    ['mcpr_1', 'delete_page', 'gitmcp'],
  ]);
  const done = await runner.run('sdk-tools', paused.state.reject('mcpr_1', { message: 'Keep it.', approver: 'ann' }));
  expect(done.finalOutput).toBe('kept');

  const [first, second] = h.model.requests
    .filter((r) => r.runId === id)
    .map((r) => r.body as { tools: Array<Record<string, unknown>>; input: Array<Record<string, unknown>> });
  expect(first!.tools).toContainEqual({ type: 'web_search', search_context_size: 'low' });
  expect(first!.tools).toContainEqual({
    type: 'mcp',
    server_label: 'gitmcp',
    server_url: 'https://gitmcp.example/docs',
    require_approval: { never: { tool_names: ['search_docs'] } },
  });
  expect(second!.input.filter((i) => i.type === 'mcp_approval_response')).toEqual([
    expect.objectContaining({ approval_request_id: 'mcpr_1', approve: false }),
  ]);
});
