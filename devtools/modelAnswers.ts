// How the scripted model (devtools/scriptedModel.ts) answers a request with a script step, in the shape of the API
// asked: a Chat Completions completion or a Responses API response, as one JSON body or as an SSE stream whose text
// chunks are paced (chunkDelayMs) and recorded (sentChunks); with usage counted roughly (4 characters a token).
import type { ServerResponse } from 'node:http';
import type { BrainItem } from './demoBrain';
import type { ScriptStep } from './scriptSteps';

export interface SentChunk {
  /** The run's workflow id (the field keeps the name tests read it by). */
  runId?: string;
  at: number;
  text: string;
}

let seq = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;
const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

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

export interface Pace {
  workflowId?: string;
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
      pace.sent.push({ ...(pace.workflowId ? { runId: pace.workflowId } : {}), at: Date.now(), text: e.text });
  }
  res.end();
}

export async function answerChat(
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

export async function answerResponses(
  res: ServerResponse,
  body: Record<string, unknown>,
  items: BrainItem[],
  step: ScriptStep,
  pace?: Pace,
): Promise<{ id: string; output: Array<Record<string, unknown>> }> {
  const id = nextId('resp');
  const calls = resolvedCalls(step);
  const u = usageFor(items, step);
  const output: Array<Record<string, unknown>> = [...(step.providerItems ?? [])];
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
  if (!pace) {
    sendJson(res, 200, response);
    return response;
  }
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
  return response;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
