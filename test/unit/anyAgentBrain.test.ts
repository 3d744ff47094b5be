// The scripted model drives any agent: a directed `call <tool> {…}`, or the tool a message names with arguments
// filled from the tool's JSON schema and the message's values; the demo tools stay with the demo brain.
import OpenAI from 'openai';
import { planAnyAgent, type ToolSpec, toolSpecs } from '../../devtools/anyAgentBrain';
import type { JsonSchema } from '../../devtools/schemaArguments';
import { type BrainItem, demoReply } from '../../devtools/demoBrain';
import { startScriptedModel } from '../../devtools/scriptedModel';

const object = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema =>
  ({ type: 'object', properties, required, additionalProperties: false }) as JsonSchema;
const refund: ToolSpec = {
  name: 'issue_refund',
  description: 'Refund an order',
  parameters: object({ orderId: { type: 'string' }, amount: { type: 'number' } }),
};
const calls = (message: string, tools: ToolSpec[]) =>
  planAnyAgent(message, tools)?.toolCalls?.map((c) => [c.name, c.arguments]);
const user = (text: string): BrainItem => ({ kind: 'message', role: 'user', text });

test('a directed call: exact tool name, then a JSON object of arguments; its text says what it calls', () => {
  expect(planAnyAgent('call issue_refund {"orderId":"A-17","amount":80}', [refund])).toEqual({
    text: 'Calling issue_refund with {"orderId":"A-17","amount":80}.',
    toolCalls: [{ name: 'issue_refund', arguments: { orderId: 'A-17', amount: 80 } }],
  });
  expect(calls('call issue_refund', [refund])).toEqual([['issue_refund', {}]]); // no arguments: the tool's validation answers
});

test('bad JSON after `call` is a clear text answer with an example, and no call', () => {
  const r = planAnyAgent('call issue_refund {orderId: A-17, amount: 80}', [refund]);
  expect(r?.toolCalls).toBeUndefined();
  expect(r?.text).toMatch(
    /^I did not call issue_refund: what follows its name is not valid JSON \(.+\)\. Write the arguments as one JSON object, e\.g\. call issue_refund \{"orderId":"…","amount":1\}$/,
  );
  expect(planAnyAgent('call issue_refund [1, 2]', [refund])?.text).toBe(
    'I did not call issue_refund: its arguments must be a JSON object, e.g. call issue_refund {"orderId":"…","amount":1}',
  );
  expect(planAnyAgent('call issue_refunds {"orderId":"A-17"}', [refund])?.text).toBe(
    'There is no tool named "issue_refunds" here. I can use: issue_refund.',
  );
});

test('a word of the tool name picks the tool; the id after "order" and the number fill orderId and amount', () => {
  expect(planAnyAgent('Refund 80 EUR on order A-17', [refund])).toEqual({
    text: 'Calling issue_refund with {"orderId":"A-17","amount":80}.',
    toolCalls: [{ name: 'issue_refund', arguments: { orderId: 'A-17', amount: 80 } }],
  });
  expect(calls('Please refund order DR-42: amount 12.5', [refund])).toEqual([
    ['issue_refund', { orderId: 'DR-42', amount: 12.5 }],
  ]);
});

test('snake_case names, integers, an explicit "reason:" and an optional field the message does not give', () => {
  const tool: ToolSpec = {
    name: 'refund_order',
    parameters: object(
      {
        order_id: { type: 'string' },
        amount_cents: { type: 'integer' },
        reason: { type: 'string' },
        notify: { type: 'boolean' },
      },
      ['order_id', 'amount_cents'],
    ),
  };
  expect(calls('Refund 1250 cents for order ORD-7, reason: "damaged in transit"', [tool])).toEqual([
    ['refund_order', { order_id: 'ORD-7', amount_cents: 1250, reason: 'damaged in transit' }],
  ]);
  // A word after the name is its value only when said outright (":", "=", "is") or when it is a value the message holds.
  const hold: ToolSpec = { name: 'hold_order', parameters: object({ order: { type: 'string' } }) };
  expect(calls('Hold the order now please, it is A-17', [hold])).toEqual([['hold_order', { order: 'A-17' }]]);
  expect(calls('Hold order: ORD-7', [hold])).toEqual([['hold_order', { order: 'ORD-7' }]]);
});

test('emails and enum values: the one the message says, else the first for a required property', () => {
  const invite: ToolSpec = {
    name: 'invite_member',
    description: 'Invite someone to the workspace',
    parameters: object({
      email: { type: 'string', format: 'email' },
      role: { type: 'string', enum: ['viewer', 'editor', 'admin'] },
    }),
  };
  expect(calls('Invite bob@example.com as an editor', [invite])).toEqual([
    ['invite_member', { email: 'bob@example.com', role: 'editor' }],
  ]);
  expect(calls('invite ann@example.org', [invite])).toEqual([
    ['invite_member', { email: 'ann@example.org', role: 'viewer' }],
  ]);
});

test('quoted strings, integers and booleans; ids matched to the property the words before them name', () => {
  const ticket: ToolSpec = {
    name: 'create_ticket',
    parameters: object({ title: { type: 'string' }, priority: { type: 'integer' }, urgent: { type: 'boolean' } }, [
      'title',
    ]),
  };
  expect(calls('Create a ticket "Printer on fire", priority 2, urgent', [ticket])).toEqual([
    ['create_ticket', { title: 'Printer on fire', priority: 2, urgent: true }],
  ]);
  expect(calls('Create a ticket "Printer on fire", not urgent', [ticket])).toEqual([
    ['create_ticket', { title: 'Printer on fire', urgent: false }],
  ]);
  const move: ToolSpec = {
    name: 'move_stock',
    parameters: object({
      sku: { type: 'string' },
      fromId: { type: 'string' },
      toId: { type: 'string' },
      quantity: { type: 'integer' },
    }),
  };
  expect(calls('Move 5 of SKU-9 from WH-1 to WH-2', [move])).toEqual([
    ['move_stock', { sku: 'SKU-9', fromId: 'WH-1', toId: 'WH-2', quantity: 5 }],
  ]);
});

test('nullable and nested properties (zod .nullable(), z.object inside z.object)', () => {
  const ship: ToolSpec = {
    name: 'ship_parcel',
    parameters: object({
      to: object({ name: { type: 'string' }, city: { type: 'string' } }, ['name']),
      weightKg: { type: 'number' },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    }),
  };
  expect(calls('Ship a parcel of 2.5 kg to Ann Lee', [ship])).toEqual([
    ['ship_parcel', { to: { name: 'Ann Lee' }, weightKg: 2.5, note: null }],
  ]);
  expect(calls('Ship 1 kg to Ann Lee in Oslo, note: "fragile"', [ship])).toEqual([
    ['ship_parcel', { to: { name: 'Ann Lee', city: 'Oslo' }, weightKg: 1, note: 'fragile' }],
  ]);
});

test('of tools sharing a word, the one the message names apart; else the tool its description fits', () => {
  const lookup: ToolSpec = { name: 'lookup_order', parameters: object({ orderId: { type: 'string' } }) };
  const cancel: ToolSpec = { name: 'cancel_order', parameters: object({ orderId: { type: 'string' } }) };
  expect(calls('Cancel order A-17', [lookup, cancel])).toEqual([['cancel_order', { orderId: 'A-17' }]]);
  expect(calls('Look up order A-17, then cancel_order it', [lookup, cancel])?.map(([n]) => n)).toEqual([
    'cancel_order',
  ]);
  const kb: ToolSpec = {
    name: 'kb_search',
    description: 'Search the knowledge base articles',
    parameters: object({ query: { type: 'string' } }),
  };
  expect(calls('Find articles about billing in the knowledge base', [kb])).toEqual([
    ['kb_search', { query: 'Find articles about billing in the knowledge base' }],
  ]);
});

test('a message naming no tool: no plan, and the demo brain answers in text listing the tools, as before', () => {
  expect(planAnyAgent('hello there', [refund])).toBeUndefined();
  expect(demoReply([user('hello there')], ['issue_refund'], [refund])).toEqual({
    text: 'You said: "hello there". I can use: issue_refund.',
  });
});

test('handoffs only by their full name; the demo tools stay with the demo brain', () => {
  const handoff: ToolSpec = { name: 'transfer_to_refunds', parameters: object({}) };
  expect(planAnyAgent('I want a refund', [handoff])).toBeUndefined();
  expect(calls('please transfer_to_refunds', [handoff])).toEqual([['transfer_to_refunds', {}]]);
  const weather: ToolSpec = { name: 'get_weather', parameters: object({ city: { type: 'string' } }) };
  expect(planAnyAgent('Weather in Paris?', [weather], new Set(['get_weather']))).toBeUndefined();
  expect(demoReply([user("What's the weather in Paris?")], ['get_weather'], [weather])).toEqual({
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  });
});

test('toolSpecs reads both request shapes', () => {
  const parameters = refund.parameters;
  expect(
    toolSpecs({
      tools: [{ type: 'function', function: { name: 'issue_refund', description: 'Refund an order', parameters } }],
    }),
  ).toEqual([refund]);
  expect(
    toolSpecs({
      tools: [
        { type: 'function', name: 'issue_refund', description: 'Refund an order', parameters, strict: false },
        { type: 'mcp', server_label: 'x' },
      ],
    }),
  ).toEqual([refund]);
});

test('through the scripted model: the call, then a final answer quoting the result (both APIs)', async () => {
  const server = await startScriptedModel();
  try {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        name: 'issue_refund',
        description: 'Refund an order',
        parameters: refund.parameters as Record<string, unknown>,
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: 'm', input: 'Refund 80 EUR on order A-17', tools });
    expect(first.output_text).toBe('Calling issue_refund with {"orderId":"A-17","amount":80}.');
    const call = first.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ name: 'issue_refund', arguments: '{"orderId":"A-17","amount":80}' });
    const callId = (call as { call_id: string }).call_id;
    const input = [
      { role: 'user' as const, content: 'Refund 80 EUR on order A-17' },
      {
        type: 'function_call' as const,
        call_id: callId,
        name: 'issue_refund',
        arguments: '{"orderId":"A-17","amount":80}',
      },
      { type: 'function_call_output' as const, call_id: callId, output: 'Refunded 80 EUR on order A-17' },
    ];
    const final = await client.responses.create({ model: 'm', input, tools });
    expect(final.output_text).toBe('issue_refund: Refunded 80 EUR on order A-17');
    expect(final.output.some((o) => o.type === 'function_call')).toBe(false);

    const chat = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'call issue_refund {"orderId":"B-2","amount":5}' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'issue_refund',
            description: 'Refund an order',
            parameters: refund.parameters as Record<string, unknown>,
          },
        },
      ],
    });
    expect(
      chat.choices[0]!.message.tool_calls?.map((c) =>
        c.type === 'function' ? [c.function.name, c.function.arguments] : [],
      ),
    ).toEqual([['issue_refund', '{"orderId":"B-2","amount":5}']]);
  } finally {
    await server.close();
  }
});
