// A loopback OpenAI-compatible model server for tests and offline demos. It speaks POST /v1/chat/completions and
// POST /v1/responses, as JSON or as SSE streams, so the real `openai` client talks to it unchanged.
// Each request is answered by the next queued script step for its run (header X-Countersign-Run-Id, sent by
// the model activity), else the next step of the shared queue, else the deterministic demo brain.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RUN_ID_HEADER } from '../activities/model/modelTurn';
import { toolSpecs } from './anyAgentBrain';
import { type BrainItem, demoReply } from './demoBrain';
import { type ScriptStep, scriptSchema } from './scriptSteps';

const SHARED = '*';

export interface RecordedRequest {
  api: 'chat' | 'responses';
  runId?: string;
  stream: boolean;
  authorization?: string;
  body: Record<string, unknown>;
  /** The conversation as the server understood it. */
  items: BrainItem[];
  tools: string[];
}

export interface ScriptedModel {
  /** e.g. http://127.0.0.1:41234/v1 — what OPENAI_BASE_URL should be. */
  baseURL: string;
  /** Queue steps for one run (workflow id), or for any run with '*'. */
  script(runId: string, steps: ScriptStep[]): void;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Every text chunk of a streamed answer, when it was written (Date.now()): benches and tests time deltas with it. */
  sentChunks: SentChunk[];
  /** The API key the server insists on; undefined = accept any. */
  requiredApiKey?: string;
  close(): Promise<void>;
}

export interface SentChunk {
  runId?: string;
  at: number;
  text: string;
}

export interface ScriptedModelOptions {
  port?: number;
  host?: string;
  /** Reject requests whose bearer token differs (to test 401 handling). */
  requiredApiKey?: string;
}

let seq = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;
const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (typeof p === 'string' ? p : ((p as { text?: string }).text ?? ''))).join('');
  return '';
}

/** Chat Completions messages → brain items. */
function chatItems(body: Record<string, unknown>): BrainItem[] {
  const out: BrainItem[] = [];
  for (const m of (body.messages as Array<Record<string, unknown>>) ?? []) {
    if (m.role === 'tool') out.push({ kind: 'output', callId: String(m.tool_call_id), output: textOf(m.content) });
    else {
      if (m.content != null) out.push({ kind: 'message', role: String(m.role), text: textOf(m.content) });
      for (const tc of (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) ?? [])
        out.push({ kind: 'call', callId: tc.id, name: tc.function.name, arguments: tc.function.arguments });
    }
  }
  return out;
}

/** Responses API input → brain items. */
function responsesItems(body: Record<string, unknown>): BrainItem[] {
  const out: BrainItem[] = [];
  if (typeof body.instructions === 'string') out.push({ kind: 'message', role: 'system', text: body.instructions });
  const input = body.input;
  if (typeof input === 'string') return [...out, { kind: 'message', role: 'user', text: input }];
  for (const it of (input as Array<Record<string, unknown>>) ?? []) {
    if (it.type === 'function_call')
      out.push({ kind: 'call', callId: String(it.call_id), name: String(it.name), arguments: String(it.arguments) });
    else if (it.type === 'function_call_output')
      out.push({ kind: 'output', callId: String(it.call_id), output: textOf(it.output) });
    else if (it.role) out.push({ kind: 'message', role: String(it.role), text: textOf(it.content) });
  }
  return out;
}

function toolNames(body: Record<string, unknown>): string[] {
  return ((body.tools as Array<Record<string, unknown>>) ?? []).map((t) =>
    String((t.function as { name?: string } | undefined)?.name ?? t.name ?? ''),
  );
}

function resolvedCalls(step: ScriptStep) {
  return (step.toolCalls ?? []).map((c) => ({
    callId: c.callId ?? nextId('call'),
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
}

function usageFor(items: BrainItem[], step: ScriptStep) {
  const input = tokens(JSON.stringify(items));
  const output = tokens((step.text ?? '') + JSON.stringify(step.toolCalls ?? []));
  return { input, output };
}

/** An SSE event; `text` marks a text chunk (paced by the step's chunkDelayMs, recorded in sentChunks). */
interface SseEvent {
  event?: string;
  data: unknown;
  text?: string;
}

interface Pace {
  runId?: string;
  chunkDelayMs?: number;
  sent: SentChunk[];
}

const textChunks = (text: string | undefined) => (text ? (text.match(/.{1,16}/gs) ?? []) : []);

async function sendSse(res: ServerResponse, events: SseEvent[], pace: Pace) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let chunks = 0;
  for (const e of events) {
    if (e.text !== undefined && chunks++ > 0 && pace.chunkDelayMs)
      await new Promise((r) => setTimeout(r, pace.chunkDelayMs));
    if (res.destroyed) return; // the client gave up (timeout, abort)
    res.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    );
    if (e.text !== undefined)
      pace.sent.push({ ...(pace.runId ? { runId: pace.runId } : {}), at: Date.now(), text: e.text });
  }
  res.end();
}

async function answerChat(
  res: ServerResponse,
  body: Record<string, unknown>,
  items: BrainItem[],
  step: ScriptStep,
  pace?: Pace,
) {
  const id = nextId('chatcmpl');
  const model = String(body.model ?? 'scripted');
  const created = Math.floor(Date.now() / 1000);
  const calls = resolvedCalls(step);
  const u = usageFor(items, step);
  const usage = { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output };
  const toolCalls = calls.map((c) => ({
    id: c.callId,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  const finish = calls.length ? 'tool_calls' : 'stop';
  if (!pace) {
    const message = {
      role: 'assistant',
      content: step.text ?? null,
      ...(calls.length ? { tool_calls: toolCalls } : {}),
    };
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish_reason: string | null = null): SseEvent => ({
    data: { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }] },
  });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of textChunks(step.text)) events.push({ ...chunk({ content: piece }), text: piece });
  calls.forEach((c, index) =>
    events.push(
      chunk({
        tool_calls: [{ index, id: c.callId, type: 'function', function: { name: c.name, arguments: c.arguments } }],
      }),
    ),
  );
  events.push(chunk({}, finish));
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage)
    events.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage } });
  events.push({ data: '[DONE]' });
  await sendSse(res, events, pace);
}

async function answerResponses(
  res: ServerResponse,
  body: Record<string, unknown>,
  items: BrainItem[],
  step: ScriptStep,
  pace?: Pace,
) {
  const id = nextId('resp');
  const calls = resolvedCalls(step);
  const u = usageFor(items, step);
  const output: Array<Record<string, unknown>> = [];
  if (step.text !== undefined)
    output.push({
      type: 'message',
      id: nextId('msg'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    });
  for (const c of calls)
    output.push({
      type: 'function_call',
      id: nextId('fc'),
      call_id: c.callId,
      name: c.name,
      arguments: c.arguments,
      status: 'completed',
    });
  for (const r of step.mcpApprovalRequests ?? [])
    output.push({
      type: 'mcp_approval_request',
      id: r.id ?? nextId('mcpr'),
      server_label: r.serverLabel,
      name: r.name,
      arguments: typeof r.arguments === 'string' ? r.arguments : JSON.stringify(r.arguments),
    });
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: String(body.model ?? 'scripted'),
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: body.tools ?? [],
    error: null,
    incomplete_details: null,
    usage: {
      input_tokens: u.input,
      output_tokens: u.output,
      total_tokens: u.input + u.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
  if (!pace) return sendJson(res, 200, response);
  let n = 0;
  const ev = (type: string, data: Record<string, unknown>): SseEvent => ({
    event: type,
    data: { type, sequence_number: n++, ...data },
  });
  const events = [
    ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }),
  ];
  output.forEach((item, output_index) => {
    events.push(ev('response.output_item.added', { output_index, item }));
    if (item.type === 'message')
      for (const delta of textChunks(step.text))
        events.push({
          ...ev('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta }),
          text: delta,
        });
    events.push(ev('response.output_item.done', { output_index, item }));
  });
  events.push(ev('response.completed', { response }));
  await sendSse(res, events, pace);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const queues = new Map<string, ScriptStep[]>();
  const requests: RecordedRequest[] = [];
  const sentChunks: SentChunk[] = [];
  const model: ScriptedModel = {
    baseURL: '',
    requests,
    sentChunks,
    requiredApiKey: options.requiredApiKey,
    script(runId, steps) {
      queues.set(runId, [...(queues.get(runId) ?? []), ...scriptSchema.parse(steps)]);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'POST' && url.pathname.startsWith('/_scripts/')) {
      const parsed = scriptSchema.safeParse(await readBody(req));
      if (!parsed.success) return sendJson(res, 400, { error: { message: parsed.error.message } });
      model.script(decodeURIComponent(url.pathname.slice('/_scripts/'.length)), parsed.data);
      return sendJson(res, 200, { queued: parsed.data.length });
    }
    const api = url.pathname.endsWith('/chat/completions')
      ? 'chat'
      : url.pathname.endsWith('/responses')
        ? 'responses'
        : undefined;
    if (req.method !== 'POST' || !api)
      return sendJson(res, 404, {
        error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' },
      });

    const authorization = req.headers.authorization;
    const body = await readBody(req);
    const runId = req.headers[RUN_ID_HEADER.toLowerCase()] as string | undefined;
    const items = api === 'chat' ? chatItems(body) : responsesItems(body);
    const tools = toolNames(body);
    const stream = body.stream === true;
    requests.push({ api, runId, stream, authorization, body, items, tools });
    if (model.requiredApiKey && authorization !== `Bearer ${model.requiredApiKey}`)
      return sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });

    const queue = (runId && queues.get(runId)?.length ? queues.get(runId) : queues.get(SHARED)) ?? [];
    const step = queue.shift() ?? demoReply(items, tools, toolSpecs(body));
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.error) {
      const headers: Record<string, string> =
        step.error.retryAfterSeconds !== undefined ? { 'retry-after': String(step.error.retryAfterSeconds) } : {};
      return sendJson(
        res,
        step.error.status,
        { error: { message: step.error.message, type: 'scripted_error', code: null } },
        headers,
      );
    }
    const pace = stream ? { runId, chunkDelayMs: step.chunkDelayMs, sent: sentChunks } : undefined;
    if (api === 'chat') await answerChat(res, body, items, step, pace);
    else await answerResponses(res, body, items, step, pace);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 400, { error: { message: `scripted model: ${(err as Error).message}` } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  model.baseURL = `http://${address}:${port}/v1`;
  return model;
}
