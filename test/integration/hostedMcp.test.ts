// Hosted MCP (Responses API): the provider's mcp_approval_request items become pending calls in the same book (same
// update, signals, audit), and the decisions go back to the provider as mcp_approval_response items on the next
// turn. A worker on Chat Completions refuses such agents at start.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { AgentRegistry, defineAgent } from '../../agents';
import { Runner } from '../../client';
import { rejectSignal } from '../../contract/messages';
import { startWorker } from '../../worker';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000);

const docs = defineAgent({
  name: 'docs-assistant',
  instructions: 'test',
  tools: [],
  hostedMcp: [
    {
      serverLabel: 'gitmcp',
      serverUrl: 'https://gitmcp.example/openai/docs',
      requireApproval: { never: { toolNames: ['search_docs'] } },
      headers: { Authorization: 'Bearer not-in-history' },
    },
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([docs]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const bodiesOf = (id: string) =>
  h.model.requests
    .filter((r) => r.runId === id)
    .map((r) => r.body as { tools?: unknown[]; input: Array<Record<string, unknown>> });

test('an approval the provider asks for is a pending call; approve and reject go back as mcp_approval_response', async () => {
  const id = newId('hosted');
  h.model.script(id, [
    {
      mcpApprovalRequests: [
        { id: 'mcpr_1', serverLabel: 'gitmcp', name: 'fetch_docs', arguments: { page: 'intro' } },
        { id: 'mcpr_2', serverLabel: 'gitmcp', name: 'delete_page', arguments: { page: 'old' } },
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run('docs-assistant', 'tidy the docs', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName, i.arguments, i.mcpServer])).toEqual([
    ['mcpr_1', 'fetch_docs', '{"page":"intro"}', 'gitmcp'],
    ['mcpr_2', 'delete_page', '{"page":"old"}', 'gitmcp'],
  ]);
  await h.client.workflow
    .getHandle(id)
    .signal(rejectSignal, { callId: 'mcpr_2', message: 'Keep old pages.', approver: 'bob' });
  const done = await runner.run(
    'docs-assistant',
    (await runner.nextPause(id).catch(() => paused)).toState().approve('mcpr_1', { approver: 'ann' }),
  );
  expect(done.finalOutput).toBe('done');

  const [first, second] = bodiesOf(id);
  expect(first!.tools).toContainEqual({
    type: 'mcp',
    server_label: 'gitmcp',
    server_url: 'https://gitmcp.example/openai/docs',
    require_approval: { never: { tool_names: ['search_docs'] } },
    headers: { Authorization: 'Bearer not-in-history' },
  });
  expect(second!.input.filter((i) => String(i.type).startsWith('mcp_'))).toEqual([
    {
      type: 'mcp_approval_request',
      id: 'mcpr_1',
      server_label: 'gitmcp',
      name: 'fetch_docs',
      arguments: '{"page":"intro"}',
    },
    {
      type: 'mcp_approval_request',
      id: 'mcpr_2',
      server_label: 'gitmcp',
      name: 'delete_page',
      arguments: '{"page":"old"}',
    },
    { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true },
    { type: 'mcp_approval_response', approval_request_id: 'mcpr_2', approve: false, reason: 'Keep old pages.' },
  ]);
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.approver, a.via])).toEqual([
    ['mcpr_2', 'rejected', 'bob', 'signal'],
    ['mcpr_1', 'approved', 'ann', 'update'],
  ]);
  // The server's headers travel to the provider from the worker, never through history.
  const history = JSON.stringify(await h.client.workflow.getHandle(id).fetchHistory());
  expect(history).not.toContain('not-in-history');
});

test('a worker on Chat Completions refuses an agent with hosted MCP before serving anything', async () => {
  const env = {
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: join(tmpdir(), 'none.toml'),
    COUNTERSIGN_MODEL_API: 'chat',
    OPENAI_BASE_URL: h.model.baseURL,
    OPENAI_API_KEY: 'x',
  };
  await expect(startWorker({ agents: [docs], taskQueue: newId('chat'), env })).rejects.toThrow(
    'agent docs-assistant uses hosted MCP servers, which only the Responses API offers; set COUNTERSIGN_MODEL_API=responses, or use mcpServers (run by the worker) instead',
  );
  expect(() =>
    defineAgent({
      name: 'x',
      instructions: 'x',
      tools: [],
      hostedMcp: [{ serverLabel: 'bad label', serverUrl: 'https://a.example' }],
    }),
  ).toThrow('agent x: hostedMcp[0].serverLabel: must be letters, digits, _ or - (the API requires it)');
});
