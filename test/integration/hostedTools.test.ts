// Hosted tools (Responses API): webSearchTool(), fileSearchTool(), codeInterpreterTool() and imageGenerationTool() in an
// agent's tools are sent to the provider; the calls the provider makes within a turn are kept in the conversation (an
// image's base64 as a short placeholder, never in history), sent back on the next turn, and shown as provider-executed
// in the run's events, `countersign show`, `audit` and `conversation`. A worker on Chat Completions refuses such agents.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { z } from 'zod';
import {
  AgentRegistry,
  codeInterpreterTool,
  defineAgent,
  defineTool,
  fileSearchTool,
  imageGenerationTool,
  webSearchTool,
} from '../../agents';
import { Runner } from '../../client';
import type { ConversationItem } from '../../contract/items';
import type { RunEvent } from '../../contract/runEvents';
import { startWorker } from '../../worker';
import { cliEnv, countersign } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000);

const lookup = defineTool({
  name: 'lookup_order',
  description: 'Look an order up',
  parameters: z.object({ order: z.string() }),
  needsApproval: false,
  execute: async ({ order }) => `order ${order}: shipped`,
});

const researcher = defineAgent({
  name: 'researcher',
  instructions: 'test',
  tools: [
    lookup,
    webSearchTool({ searchContextSize: 'low', filters: { allowedDomains: ['example.com'] } }),
    fileSearchTool({ vectorStoreIds: ['vs_docs'], maxNumResults: 3, includeSearchResults: true }),
    codeInterpreterTool(),
    imageGenerationTool({ size: '1024x1024', quality: 'low' }),
  ],
});

// An image's base64 as the provider sends it: about 40 KB, with a marker no placeholder contains.
const IMAGE = `IMGMARKER${'A'.repeat(40_000)}`;
const providerItems = [
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'order 7 carrier' } },
  { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['refund policy'], results: null },
  { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', code: 'print(6*7)', container_id: 'cntr_1' },
  { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: IMAGE, revised_prompt: 'a parcel' },
];

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([researcher]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

test('hosted tools are sent; the calls the provider made are kept, sent back and shown as provider-executed', async () => {
  const id = newId('hosted-tools');
  h.model.script(id, [
    { providerItems, toolCalls: [{ name: 'lookup_order', arguments: { order: '7' }, callId: 'call_1' }] },
    { text: 'Order 7 shipped; here is the picture.' },
  ]);
  const done = await runner.run('researcher', 'where is order 7?', { workflowId: id });
  expect(done.finalOutput).toBe('Order 7 shipped; here is the picture.');

  const [first, second] = h.model.requests
    .filter((r) => r.runId === id)
    .map(
      (r) =>
        r.body as { tools: Array<Record<string, unknown>>; include?: string[]; input: Array<Record<string, unknown>> },
    );
  expect(first!.tools.map((t) => t.type)).toEqual([
    'function',
    'web_search',
    'file_search',
    'code_interpreter',
    'image_generation',
  ]);
  expect(first!.tools.slice(1)).toEqual([
    { type: 'web_search', filters: { allowed_domains: ['example.com'] }, search_context_size: 'low' },
    { type: 'file_search', vector_store_ids: ['vs_docs'], max_num_results: 3 },
    { type: 'code_interpreter', container: { type: 'auto' } },
    { type: 'image_generation', quality: 'low', size: '1024x1024' },
  ]);
  expect(first!.include).toEqual(['file_search_call.results']);
  // The next turn sends the provider's items back as they came, the image without its base64.
  const sentBack = second!.input.filter((i) => String(i.type).endsWith('_call') && i.type !== 'function_call');
  expect(sentBack).toEqual([...providerItems.slice(0, 3), { ...providerItems[3], result: null }]);

  // Kept in the conversation, the image as a placeholder: its base64 never reaches history.
  const items: ConversationItem[] = [];
  for await (const item of runner.conversation(id)) items.push(item);
  const kept = items.flatMap((i) => (i.type === 'provider_item' ? [i.item] : []));
  expect(kept.map((i) => i.id)).toEqual(['ws_1', 'fs_1', 'ci_1', 'ig_1']);
  expect(kept[3]).toMatchObject({ result: null, result_omitted: '40009 characters of base64, not kept' });
  const history = JSON.stringify(await h.client.workflow.getHandle(id).fetchHistory());
  expect(history).not.toContain('IMGMARKER');

  // Events: each provider call once, as provider-executed, needing no person; the function call as before.
  const events: RunEvent[] = [];
  for await (const e of runner.stream(id)) events.push(e);
  const called = events.flatMap((e) => (e.type === 'tool_called' ? [e] : []));
  expect(called.map((e) => [e.callId, e.toolName, e.arguments, e.needsPerson, e.providerExecuted])).toEqual([
    ['ws_1', 'web_search', '{"query":"order 7 carrier"}', false, true],
    ['fs_1', 'file_search', '{"queries":"refund policy"}', false, true],
    ['ci_1', 'code_interpreter', '{"code":"print(6*7)"}', false, true],
    ['ig_1', 'image_generation', '{"prompt":"a parcel"}', false, true],
    ['call_1', 'lookup_order', '{"order":"7"}', false, undefined],
  ]);

  // The CLI: show, audit and conversation say so in words.
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
  const shown = (await countersign(['show', id], env)).stdout;
  const heading = 'Provider-executed (run by the model provider within a turn; no person could gate them)';
  expect(shown).toContain(heading);
  expect(shown).toContain('ws_1  web_search query order 7 carrier (completed)');
  expect(shown).toContain('ig_1  image_generation prompt a parcel (completed)');
  const audit = (await countersign(['audit', id], env)).stdout;
  expect(audit).toContain('No decisions yet.');
  expect(audit.split(heading)[1]!.trim().split('\n')).toHaveLength(4);
  const conversation = (await countersign(['conversation', id], env)).stdout;
  expect(conversation).toContain('→ code_interpreter code print(6*7) (provider-executed ci_1, completed)');
});

test('a worker on Chat Completions refuses an agent with a hosted tool; bad hosted tools are refused at definition', async () => {
  const env = {
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: join(tmpdir(), 'none.toml'),
    COUNTERSIGN_MODEL_API: 'chat',
    OPENAI_BASE_URL: h.model.baseURL,
    OPENAI_API_KEY: 'x',
  };
  await expect(startWorker({ agents: [researcher], taskQueue: newId('chat'), env })).rejects.toThrow(
    'agent researcher uses hosted tools (web_search, file_search, code_interpreter, image_generation), which only the Responses API offers; set COUNTERSIGN_MODEL_API=responses, or use function tools instead',
  );
  expect(() => fileSearchTool({ vectorStoreIds: [] })).toThrow(
    'fileSearchTool needs vectorStoreIds: one or more vector store ids, e.g. ["vs_abc123"]',
  );
  expect(() => defineAgent({ name: 'x', instructions: 'x', tools: [webSearchTool(), webSearchTool()] })).toThrow(
    'agent x: two tools are named web_search',
  );
  expect(() =>
    defineAgent({ name: 'x', instructions: 'x', tools: [webSearchTool({ name: 'lookup_order' }), lookup] }),
  ).toThrow('agent x: two tools are named lookup_order');
  // The snapshot records them as plain data: what was sent, by name.
  expect(researcher.snapshot().hostedTools?.map((t) => t.name)).toEqual([
    'web_search',
    'file_search',
    'code_interpreter',
    'image_generation',
  ]);
});
