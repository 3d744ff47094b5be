// The scripted server speaks both OpenAI APIs, as JSON and as SSE, to the real `openai` client.
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';

let server: ScriptedModel;
let client: OpenAI;
beforeAll(async () => {
  server = await startScriptedModel();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => server.close());

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'w',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

test('chat completions, JSON: scripted tool call', async () => {
  server.script('*', [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, callId: 'c1' }] }]);
  const r = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'weather?' }],
    tools,
  });
  expect(r.choices[0]!.finish_reason).toBe('tool_calls');
  expect(r.choices[0]!.message.tool_calls).toEqual([
    { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
  ]);
});

test('chat completions, SSE: text and tool calls arrive as chunks, usage at the end', async () => {
  server.script('*', [
    {
      text: 'Checking the weather for you now.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, callId: 'c2' }],
    },
  ]);
  const stream = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'x' }],
    tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const calls: string[] = [];
  let usage: number | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    text += chunk.choices[0]?.delta.content ?? '';
    for (const tc of chunk.choices[0]?.delta.tool_calls ?? [])
      calls.push(`${tc.id}:${tc.function?.name}:${tc.function?.arguments}`);
    if (chunk.usage) usage = chunk.usage.total_tokens;
  }
  expect(chunks).toBeGreaterThan(3);
  expect(text).toBe('Checking the weather for you now.');
  expect(calls).toEqual(['c2:get_weather:{"city":"Oslo"}']);
  expect(usage).toBeGreaterThan(0);
});

test('responses, JSON: text and function call items, usage', async () => {
  server.script('*', [
    { text: 'Here you go', toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' }, callId: 'c3' }] },
  ]);
  const r = await client.responses.create({
    model: 'm',
    input: 'weather in Rome',
    tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }],
  });
  expect(r.output_text).toBe('Here you go');
  expect(r.output.find((o) => o.type === 'function_call')).toMatchObject({
    call_id: 'c3',
    name: 'get_weather',
    arguments: '{"city":"Rome"}',
  });
  expect(r.usage!.total_tokens).toBeGreaterThan(0);
});

test('responses, SSE: events end with response.completed', async () => {
  server.script('*', [{ text: 'streamed answer' }]);
  const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
  const types: string[] = [];
  let final = '';
  for await (const ev of stream) {
    types.push(ev.type);
    if (ev.type === 'response.output_text.delta') final += ev.delta;
  }
  expect(types[0]).toBe('response.created');
  expect(types.at(-1)).toBe('response.completed');
  expect(final).toBe('streamed answer');
});

test('scripted errors reach the client with status and message', async () => {
  server.script('*', [{ error: { status: 503, message: 'overloaded' } }]);
  await expect(client.responses.create({ model: 'm', input: 'hi' })).rejects.toMatchObject({
    status: 503,
    message: expect.stringContaining('overloaded'),
  });
});

test('scripts can be queued over HTTP, and bad scripts are refused', async () => {
  const base = server.baseURL.replace(/\/v1$/, '');
  const ok = await fetch(`${base}/_scripts/run-42`, { method: 'POST', body: JSON.stringify([{ text: 'from http' }]) });
  expect(ok.status).toBe(200);
  const bad = await fetch(`${base}/_scripts/run-42`, {
    method: 'POST',
    body: JSON.stringify([{ error: { status: 200 } }]),
  });
  expect(bad.status).toBe(400);
  const r = await client.responses.create(
    { model: 'm', input: 'hi' },
    { headers: { 'X-Countersign-Run-Id': 'run-42' } },
  );
  expect(r.output_text).toBe('from http');
});
