// The model gateway: one activity that calls the model through the official `openai` client, over the Responses
// API or Chat Completions, and returns provider-neutral items. Temporal owns retries (maxRetries: 0 here):
// 429/5xx/network errors are thrown as retryable failures, other 4xx as non-retryable ones with the provider's text.
// The API key lives in this process only; nothing key-related is returned to the workflow.
// With the worker's delta relay, the call streams (modelStream.ts): text deltas go to the relay, never to history.
import { Context } from '@temporalio/activity';
import { Failure } from '../../contract/failureTypes';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ResponseInputItem, FunctionTool, Tool } from 'openai/resources/responses/responses';
import type { ModelEndpoint } from '../../temporal.config';
import type { ModelSettings } from '../../contract/modelSettings';
import { chatSettings, responsesSettings } from './providerSettings';
import type { ConversationItem, ModelTurn, ToolSpec } from '../../contract/items';
import { type HostedMcpServer, hostedMcpTool } from '../../agents/hostedMcp';
import type { DeltaHeartbeat } from '../../contract/runEvents';
import type { DeltaRelay } from './deltaRelay';
import { type OnDelta, streamChat, streamResponses } from './modelStream';

export interface ModelRequest {
  /** The run's workflow id: sent as the run-id header so logs and scripted servers can tell runs apart. */
  workflowId: string;
  /** The run's turn number: names the turn's delta feed. Without it (older workflow code) the call does not stream. */
  turn?: number;
  /** The agent's model, else the worker's COUNTERSIGN_MODEL. */
  model?: string;
  instructions: string;
  items: ConversationItem[];
  tools: ToolSpec[];
  /** Hosted MCP servers (Responses API only). */
  hostedMcp?: readonly HostedMcpServer[];
  /** The run's model settings (its agent's, with the run's own over them). */
  settings?: ModelSettings;
  /** With the agent's outputType: the final answer must be JSON of this schema (structured output). */
  outputSchema?: Record<string, unknown>;
}

/** The name the structured-output format carries in requests. */
const OUTPUT_FORMAT_NAME = 'final_output';

export const RUN_ID_HEADER = 'X-Countersign-Run-Id';

/** How a call streams: where its deltas go, and the whole stream's limit. */
interface Live {
  onDelta: OnDelta;
  timeoutMs: number;
}

function toChatMessages(instructions: string, items: ConversationItem[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (item.type === 'message') {
      messages.push({ role: item.role, content: item.content });
    } else if (item.type === 'function_call') {
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages[messages.length - 1];
      // Chat Completions carries a turn's calls on one assistant message (with its text, if any).
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
    } // hosted MCP items exist only on the Responses API (workers on Chat Completions refuse such agents)
  }
  return messages;
}

function toResponsesInput(items: ConversationItem[]): ResponseInputItem[] {
  return items.map((item): ResponseInputItem => {
    if (item.type === 'message') return { type: 'message', role: item.role, content: item.content };
    if (item.type === 'function_call')
      return { type: 'function_call', call_id: item.callId, name: item.name, arguments: item.arguments };
    if (item.type === 'mcp_approval_request')
      return {
        type: 'mcp_approval_request',
        id: item.id,
        server_label: item.serverLabel,
        name: item.name,
        arguments: item.arguments,
      };
    if (item.type === 'mcp_approval_response')
      return {
        type: 'mcp_approval_response',
        approval_request_id: item.approvalRequestId,
        approve: item.approve,
        ...(item.reason ? { reason: item.reason } : {}),
      };
    if (item.type === 'provider_item') return item.item as unknown as ResponseInputItem;
    return { type: 'function_call_output', call_id: item.callId, output: item.output };
  });
}

async function callChat(client: OpenAI, model: string, req: ModelRequest, live?: Live): Promise<ModelTurn> {
  const tools: ChatCompletionTool[] = req.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const settings = chatSettings(
    req.settings,
    req.tools.map((t) => t.name),
  );
  const format = req.outputSchema
    ? {
        response_format: {
          type: 'json_schema',
          json_schema: { name: OUTPUT_FORMAT_NAME, schema: req.outputSchema, strict: false },
        },
      }
    : {};
  const params = {
    ...settings,
    ...format,
    model,
    messages: toChatMessages(req.instructions, req.items),
    ...(tools.length ? { tools } : {}),
  } as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const headers = { [RUN_ID_HEADER]: req.workflowId };
  const completion = live
    ? await streamChat(client, params, { headers, timeoutMs: live.timeoutMs }, live.onDelta)
    : await client.chat.completions
        .create(params, { headers })
        .then((c) => ({ message: c.choices[0]?.message, usage: c.usage }));
  const message = completion.message;
  const items: ConversationItem[] = [];
  if (message?.content) items.push({ type: 'message', role: 'assistant', content: message.content });
  for (const call of message?.tool_calls ?? []) {
    if (call.type === 'function')
      items.push({
        type: 'function_call',
        callId: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      });
  }
  const u = completion.usage;
  return {
    items,
    usage: {
      requests: 1,
      inputTokens: u?.prompt_tokens ?? 0,
      outputTokens: u?.completion_tokens ?? 0,
      totalTokens: u?.total_tokens ?? 0,
    },
  };
}

async function callResponses(client: OpenAI, model: string, req: ModelRequest, live?: Live): Promise<ModelTurn> {
  const functions: FunctionTool[] = req.tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
  const tools = [...functions, ...(req.hostedMcp ?? []).map(hostedMcpTool)] as Tool[];
  const settings = responsesSettings(
    req.settings,
    req.tools.map((t) => t.name),
  );
  const format = req.outputSchema
    ? { text: { format: { type: 'json_schema', name: OUTPUT_FORMAT_NAME, schema: req.outputSchema, strict: false } } }
    : {};
  const params = {
    ...settings,
    ...format,
    model,
    instructions: req.instructions || undefined,
    input: toResponsesInput(req.items),
    ...(tools.length ? { tools } : {}),
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
  const headers = { [RUN_ID_HEADER]: req.workflowId };
  const response = live
    ? await streamResponses(client, params, { headers, timeoutMs: live.timeoutMs }, live.onDelta)
    : await client.responses.create(params, { headers });
  const items: ConversationItem[] = [];
  for (const out of response.output) {
    if (out.type === 'message') {
      const text = out.content.map((c) => (c.type === 'output_text' ? c.text : c.refusal)).join('');
      if (text) items.push({ type: 'message', role: 'assistant', content: text });
    } else if (out.type === 'function_call') {
      items.push({ type: 'function_call', callId: out.call_id, name: out.name, arguments: out.arguments });
    } else if (out.type === 'mcp_approval_request') {
      items.push({
        type: 'mcp_approval_request',
        id: out.id,
        serverLabel: out.server_label,
        name: out.name,
        arguments: out.arguments,
      });
    } else if (out.type === 'mcp_list_tools' || out.type === 'mcp_call') {
      items.push({ type: 'provider_item', item: out as unknown as Record<string, unknown> });
    }
  }
  const u = response.usage;
  return {
    items,
    usage: {
      requests: 1,
      inputTokens: u?.input_tokens ?? 0,
      outputTokens: u?.output_tokens ?? 0,
      totalTokens: u?.total_tokens ?? 0,
    },
  };
}

/** Maps a provider error to a Temporal failure: retryable unless retrying cannot help. */
function toFailure(err: unknown, where: string): never {
  if (err instanceof OpenAI.APIConnectionError) {
    throw ApplicationFailure.create({
      type: Failure.ModelUnreachable,
      message: `model at ${where} unreachable: ${err.message}`,
    });
  }
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const detail = (err.error as { message?: string } | undefined)?.message ?? err.message;
    const message = `model provider answered ${err.status}: ${detail}`;
    if (err.status === 429) {
      const retryAfter = Number(err.headers?.get('retry-after'));
      throw ApplicationFailure.create({
        type: Failure.ModelRateLimited,
        message,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { nextRetryDelay: `${retryAfter}s` } : {}),
      });
    }
    if (err.status >= 500 || err.status === 408 || err.status === 409)
      throw ApplicationFailure.create({ type: Failure.ModelServerError, message });
    throw ApplicationFailure.create({
      type: Failure.ModelRequestRejected, // 400/401/403/404/422: fix the request, key, model or URL
      message,
      nonRetryable: true,
      details: [{ status: err.status }],
    });
  }
  throw err;
}

/** Opens the turn's feed on the relay and says where it is, in the attempt's one heartbeat. */
function openFeed(relay: DeltaRelay, workflowId: string, turn: number, timeoutMs: number): Live & { end(): void } {
  // Readers find the feed through describe() (pending activities' heartbeat details): no event, no payload in
  // history. The first heartbeat is sent at once; heartbeat details reach history only if the activity fails.
  // (A reader quicker than begin() below waits for the feed: the relay holds early readers a few seconds.)
  Context.current().heartbeat({ turn, deltas: relay.feedUrl(workflowId, turn) } satisfies DeltaHeartbeat);
  relay.begin(workflowId, turn);
  return {
    onDelta: (delta) => relay.publish(workflowId, turn, delta),
    timeoutMs,
    end: () => relay.end(workflowId, turn),
  };
}

function inLocalActivity(): boolean {
  try {
    return Context.current().info.isLocal;
  } catch {
    return false; // called outside an activity (unit tests)
  }
}

/** `relay`: the worker's delta relay (activities/model/deltaRelay.ts); without it, calls do not stream. */
export function createModelActivities(settings: ModelEndpoint, relay?: DeltaRelay) {
  const client = new OpenAI({
    // The SDK refuses to start without a key; a missing one surfaces as the provider's 401 instead.
    apiKey: settings.apiKey ?? 'missing-OPENAI_API_KEY',
    baseURL: settings.baseURL,
    maxRetries: 0,
    timeout: settings.requestTimeoutMs,
  });
  const where = settings.baseURL ?? 'the OpenAI API';
  return {
    /** One model turn. Retried by Temporal per the workflow's retry policy. */
    async callModel(req: ModelRequest): Promise<ModelTurn> {
      const model = req.model ?? settings.model;
      // A local activity (fast mode) has no heartbeat, so no reader could find a feed: it does not stream.
      const live =
        relay && req.turn !== undefined && !inLocalActivity()
          ? openFeed(relay, req.workflowId, req.turn, settings.requestTimeoutMs)
          : undefined;
      try {
        return settings.api === 'chat'
          ? await callChat(client, model, req, live)
          : await callResponses(client, model, req, live);
      } catch (err) {
        toFailure(err, where);
      } finally {
        live?.end(); // failed attempts too: readers of this attempt are told it is over
      }
    },
  };
}
