// Impact previews for an MCP server's gated calls: `preview: { tool }` names a read-only tool of the same server,
// called with { tool, arguments } when the call is planned; its text is the pending call's preview. A preview tool
// that fails shows `preview failed: …`, and the person is asked all the same.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry, defineAgent } from '../../agents';
import { Runner } from '../../client';
import { type McpHttpServer, readLedger, startMcpHttpServer } from '../../devtools/demoMcpServer';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);
const ledger = join(mkdtempSync(join(tmpdir(), 'countersign-mcp-preview-')), 'db.jsonl');
let server: McpHttpServer;
let h: Harness;
let runner: Runner;

const gated = {
  always: { toolNames: ['drop_table'] },
  never: { toolNames: ['list_tables', 'describe_call', 'fail_always'] },
};
beforeAll(async () => {
  server = await startMcpHttpServer({ ledger });
  const previewed = defineAgent({
    name: 'db-previewed',
    instructions: 'test',
    tools: [],
    mcpServers: [{ name: 'db', url: server.url, requireApproval: gated, preview: { tool: 'describe_call' } }],
  });
  const broken = defineAgent({
    name: 'db-preview-broken',
    instructions: 'test',
    tools: [],
    mcpServers: [{ name: 'db', url: server.url, requireApproval: gated, preview: { tool: 'fail_always' } }],
  });
  h = await startHarness({ registry: new AgentRegistry([previewed, broken]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await server?.close();
});

test('the server describes its gated call; calls that run at once are not previewed', async () => {
  const id = newId('mcp-preview');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'list_tables', arguments: {}, callId: 'l1' },
        { name: 'drop_table', arguments: { table: 'orders' }, callId: 'd1' },
      ],
    },
    { text: 'done' },
  ]);
  await runner.run('db-previewed', 'drop orders', { workflowId: id });
  const [pending] = await runner.pending(id);
  expect(pending).toMatchObject({
    callId: 'd1',
    mcpServer: 'db',
    preview: { summary: 'drops table orders and every row in it; 2 tables remain; this cannot be undone' },
  });
  const previews = readLedger(ledger).filter((l) => l.tool === 'describe_call');
  expect(previews).toEqual([
    expect.objectContaining({
      arguments: { tool: 'drop_table', arguments: { table: 'orders' } },
      idempotencyKey: `${id}:d1:preview`,
    }),
  ]);
  expect(readLedger(ledger).filter((l) => l.tool === 'drop_table')).toEqual([]); // the preview changed nothing
});

test('a preview tool that answers an error shows "preview failed", and the person is still asked', async () => {
  const id = newId('mcp-preview-broken');
  h.model.script(id, [
    { toolCalls: [{ name: 'drop_table', arguments: { table: 'invoices' }, callId: 'd1' }] },
    { text: 'done' },
  ]);
  const paused = await runner.run('db-preview-broken', 'drop invoices', { workflowId: id });
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['d1']);
  expect((await runner.pending(id))[0]!.preview).toEqual({
    summary: 'preview failed: fail_always answered an error: fail_always failed, as it always does',
    failed: true,
  });
  expect(() =>
    defineAgent({
      name: 'x',
      instructions: 'x',
      tools: [],
      mcpServers: [{ name: 'a', url: 'http://127.0.0.1:1/mcp', preview: { tool: '' } }],
    }),
  ).toThrow('agent x: MCP server "a": preview must be { tool: "<a read-only tool of this server>" }');
});
