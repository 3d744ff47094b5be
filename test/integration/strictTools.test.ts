// Strict and JSON-schema tools with the scripted model, on both model APIs: function tools go out with strict: true
// and their schema made strict (optional fields required and nullable, objects closed), strict: false when a tool
// opts out; a null the model sends for an optional field reads as absent; a typed final answer is asked for strictly
// and its nulls read back the same way. A tool whose parameters are a plain JSON schema is checked with Ajv: good
// arguments run, bad ones get the invalid_arguments answer, and its approval predicate, preview, fingerprint and
// userInput fields work as a zod tool's do.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { DecisionRejectedError, Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look an order up',
  parameters: z.object({ orderId: z.string(), note: z.string().optional() }),
  execute: (params) => `looked up ${JSON.stringify(params)}`,
});
const freeText = defineTool({
  name: 'free_text',
  description: 'Search the notes',
  parameters: z.object({ q: z.string(), limit: z.number().optional() }),
  strict: false,
  execute: ({ q }) => `nothing about ${q}`,
});
const fileTicket = defineTool({
  name: 'file_ticket',
  description: 'File a support ticket',
  parameters: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      priority: { type: 'integer', minimum: 1, maximum: 5 },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['title', 'priority'],
  },
  needsApproval: (_ctx, params) => Number(params.priority) >= 4,
  preview: (params) => `files "${String(params.title)}" at priority ${String(params.priority)}`,
  fingerprint: () => 'queue v1',
  execute: (params) => `filed ${JSON.stringify(params)}`,
});
const bookRoom = defineTool({
  name: 'book_room',
  description: 'Book a meeting room',
  parameters: {
    type: 'object',
    properties: { topic: { type: 'string' }, room: { type: 'string', pattern: '^R[0-9]+$' } },
    required: ['topic', 'room'],
  },
  userInput: ['room'],
  execute: (params) => `booked ${String(params.room)} for ${String(params.topic)}`,
});
const desk = defineAgent({
  name: 'strict-desk',
  instructions: 'You help.',
  tools: [lookupOrder, freeText, fileTicket, bookRoom],
});
const Forecast = z.object({ city: z.string(), note: z.string().optional() });
const forecaster = defineAgent({
  name: 'strict-forecaster',
  instructions: 'Forecast.',
  tools: [],
  outputType: Forecast,
});
const registry = () => new AgentRegistry([desk, forecaster]);

let responses: Harness;
let chat: Harness;
beforeAll(async () => {
  [responses, chat] = await Promise.all([
    startHarness({ registry: registry() }),
    startHarness({ registry: registry(), api: 'chat' }),
  ]);
});
afterAll(async () => Promise.all([responses?.close(), chat?.close()]));

const runnerOf = (h: Harness) => new Runner(h.client, { taskQueue: h.taskQueue });
const bodies = (h: Harness, workflowId: string) =>
  h.model.requests.filter((r) => r.runId === workflowId).map((r) => r.body);

/** The function tools of a request, in one shape for both APIs. */
function functionTools(body: Record<string, unknown>): Record<string, { parameters: unknown; strict: unknown }> {
  const tools = body.tools as Array<Record<string, unknown>>;
  return Object.fromEntries(
    tools.map((t) => {
      const f = (t.function ?? t) as { name: string; parameters: unknown; strict: unknown };
      return [f.name, { parameters: f.parameters, strict: f.strict }];
    }),
  );
}

const outputOf = async (h: Harness, workflowId: string, callId: string) =>
  (await runnerOf(h).describe(workflowId)).items.find(
    (i) => i.type === 'function_call_output' && i.callId === callId,
  ) as { output: string } | undefined;

test.each([
  ['responses', () => responses],
  ['chat', () => chat],
])(
  '%s API: tools go out strict (opted out: strict false); a null for an optional field reads as absent',
  async (api, harness) => {
    const h = harness();
    const workflowId = newId(`strict-${api}`);
    h.model.script(workflowId, [
      {
        toolCalls: [
          { name: 'lookup_order', arguments: { orderId: 'A-1', note: null }, callId: 'l1' },
          { name: 'free_text', arguments: { q: 'refunds' }, callId: 'f1' },
        ],
      },
      { text: 'done' },
    ]);
    const result = await runnerOf(h).run('strict-desk', 'look up A-1', { workflowId });
    expect(result.finalOutput).toBe('done');
    const tools = functionTools(bodies(h, workflowId)[0]!);
    expect(tools.lookup_order).toEqual({
      strict: true,
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['orderId', 'note'],
        additionalProperties: false,
      },
    });
    expect(tools.free_text).toEqual({
      strict: false,
      parameters: expect.objectContaining({
        required: ['q'],
        properties: expect.objectContaining({ limit: { type: 'number' } }),
      }),
    });
    expect(tools.file_ticket).toEqual({
      strict: true,
      parameters: expect.objectContaining({ required: ['title', 'priority', 'tags'], additionalProperties: false }),
    });
    expect(tools.book_room!.parameters).toMatchObject({
      required: ['topic', 'room'],
      properties: { room: { anyOf: [{ type: 'string', pattern: '^R[0-9]+$' }, { type: 'null' }] } },
    });
    expect(await outputOf(h, workflowId, 'l1')).toMatchObject({ output: 'looked up {"orderId":"A-1"}' });
    expect(await outputOf(h, workflowId, 'f1')).toMatchObject({ output: 'nothing about refunds' });
    // The run's agent snapshot records which tools went out strict.
    expect(desk.snapshot().tools.map((t) => [t.name, t.strict])).toEqual([
      ['lookup_order', true],
      ['free_text', undefined],
      ['file_ticket', true],
      ['book_room', true],
    ]);
  },
);

test.each([
  ['responses', () => responses],
  ['chat', () => chat],
])(
  '%s API: a typed answer is asked for strictly; its nulls for optional fields read back as absent',
  async (api, harness) => {
    const h = harness();
    const workflowId = newId(`strict-output-${api}`);
    h.model.script(workflowId, [{ text: '{"city":"Oslo","note":null}' }]);
    const result = await runnerOf(h).run('strict-forecaster', 'Weather in Oslo?', { workflowId });
    expect(result.finalOutput).toBe('{"city":"Oslo"}');
    expect(result.finalOutputAs(Forecast)).toEqual({ city: 'Oslo' });
    const body = bodies(h, workflowId)[0]!;
    const format =
      api === 'responses'
        ? (body.text as { format: unknown }).format
        : (body.response_format as { json_schema: unknown }).json_schema;
    expect(format).toMatchObject({
      name: 'final_output',
      strict: true,
      schema: {
        type: 'object',
        properties: { city: { type: 'string' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['city', 'note'],
        additionalProperties: false,
      },
    });
  },
);

test('a JSON-schema tool: bad arguments get the invalid_arguments answer; good ones run', async () => {
  const workflowId = newId('json-tool');
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'file_ticket', arguments: { title: 'Printer', priority: 9 }, callId: 't1' }] },
    { toolCalls: [{ name: 'file_ticket', arguments: { title: 'Printer', priority: 2, tags: null }, callId: 't2' }] },
    { text: 'filed' },
  ]);
  const result = await runnerOf(responses).run('strict-desk', 'file a ticket', { workflowId });
  expect(result.finalOutput).toBe('filed');
  expect(await outputOf(responses, workflowId, 't1')).toMatchObject({
    output:
      'Invalid arguments for tool file_ticket: priority: must be <= 5. Call it again with arguments that match its schema.',
  });
  expect(await outputOf(responses, workflowId, 't2')).toMatchObject({
    output: 'filed {"title":"Printer","priority":2}',
  });
  expect(result.interruptions).toEqual([]);
});

test('a JSON-schema tool: its approval predicate, preview and fingerprint work as a zod tool’s', async () => {
  const workflowId = newId('json-tool-gated');
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'file_ticket', arguments: { title: 'Outage', priority: 4, tags: ['net'] }, callId: 'g1' }] },
    { text: 'filed it' },
  ]);
  const paused = await runnerOf(responses).run('strict-desk', 'file an urgent ticket', { workflowId });
  expect(paused.interruptions).toEqual([
    expect.objectContaining({
      callId: 'g1',
      kind: 'approval',
      preview: { summary: 'files "Outage" at priority 4' },
      fingerprint: 'queue v1',
    }),
  ]);
  const done = await runnerOf(responses).run('strict-desk', paused.toState().approve('g1', { approver: 'ann' }));
  expect(done.finalOutput).toBe('filed it');
  expect(await outputOf(responses, workflowId, 'g1')).toMatchObject({
    output: 'filed {"title":"Outage","priority":4,"tags":["net"]}',
  });
});

test('a JSON-schema tool: a userInput field the model leaves null waits for a person, checked by the schema', async () => {
  const workflowId = newId('json-tool-input');
  chat.model.script(workflowId, [
    { toolCalls: [{ name: 'book_room', arguments: { topic: 'Sync', room: null }, callId: 'b1' }] },
    { text: 'booked' },
  ]);
  const paused = await runnerOf(chat).run('strict-desk', 'book a room', { workflowId });
  expect(paused.interruptions).toEqual([expect.objectContaining({ callId: 'b1', kind: 'input', fields: ['room'] })]);
  const bad = paused.toState().provideInput('b1', { room: 'lobby' });
  await expect(runnerOf(chat).run('strict-desk', bad)).rejects.toThrow(DecisionRejectedError);
  await expect(runnerOf(chat).run('strict-desk', bad)).rejects.toThrow(
    'input values for call b1 (book_room) are invalid: room: must match pattern "^R[0-9]+$"',
  );
  const done = await runnerOf(chat).run('strict-desk', paused.toState().provideInput('b1', { room: 'R12' }));
  expect(done.finalOutput).toBe('booked');
  expect((await outputOf(chat, workflowId, 'b1'))?.output).toContain('booked R12 for Sync');
});
