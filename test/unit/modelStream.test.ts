// A streamed model answer is bounded by its silence, not its length: one that keeps coming past the request timeout
// is read whole (a busy worker reading a long answer slowly was cut, and the turn asked again); one that stops is cut.
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import { streamChat, streamResponses } from '../../activities/model/modelStream';

let server: ScriptedModel;
let client: OpenAI;
beforeAll(async () => {
  server = await startScriptedModel();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0, timeout: 1_000 });
});
afterAll(() => server.close());

const TIMEOUT_MS = 1_000;
const TEXT = 'sixteen chars ok'.repeat(25); // 25 chunks of 16 characters
const o = { headers: {}, timeoutMs: TIMEOUT_MS };
const chat = (deltas: string[]) =>
  streamChat(client, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, o, (d) => deltas.push(d));
const responses = (deltas: string[]) => streamResponses(client, { model: 'm', input: 'hi' }, o, (d) => deltas.push(d));

test.each([
  ['chat', async (d: string[]) => (await chat(d)).message.content],
  [
    'responses',
    async (d: string[]) =>
      (await responses(d)).output.flatMap((i) =>
        i.type === 'message' ? i.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [],
      )[0],
  ],
])('%s: an answer streamed for longer than the timeout, never silent that long, is read whole', async (_, read) => {
  server.script('*', [{ text: TEXT, chunkDelayMs: 100 }]); // about 2.4 s in all
  const deltas: string[] = [];
  const started = Date.now();
  const text = await read(deltas);
  expect(Date.now() - started).toBeGreaterThan(TIMEOUT_MS * 2);
  expect([text, deltas.length, deltas.join('')]).toEqual([TEXT, 25, TEXT]);
});

test.each([
  ['chat', chat],
  ['responses', responses],
])('%s: a stream silent for the timeout is cut, as a retryable timeout that says so', async (_, read) => {
  server.script('*', [{ text: TEXT.slice(0, 32), chunkDelayMs: 3 * TIMEOUT_MS }]); // stops after its first chunk
  const deltas: string[] = [];
  const err = (await read(deltas).catch((e: unknown) => e)) as Error;
  expect([err instanceof OpenAI.APIConnectionTimeoutError, err.message]).toEqual([
    true,
    'the model stream was silent for 1s',
  ]);
  expect(deltas).toEqual([TEXT.slice(0, 16)]);
});
