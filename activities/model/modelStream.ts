// The model call as a stream, for when the worker relays text deltas (activities/model/deltaRelay.ts): each text delta goes to
// `onDelta` as it arrives, and the result is what the non-streaming call would have returned (the message and its
// tool calls, the usage), so activities/model/modelTurn.ts builds the same ModelTurn from either.
import type OpenAI from 'openai';
import { Failure } from '../../contract/failureTypes';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Response, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { openai } from './openaiModule';
import { ApplicationFailure } from '@temporalio/common';
import { withDeadlineSignal } from '../deadline';

export type OnDelta = (delta: string) => void;

const NOT_A_STREAM = 'the model server sent no stream events (if it cannot stream, set COUNTERSIGN_DELTA_RELAY=off)';

export interface StreamOptions {
  headers: Record<string, string>;
  /**
   * The longest silence: the wait for the first event, then between events. The client's own timeout stops at the
   * response headers, so without this a stalled stream would hold the activity. Not the whole stream: a long answer
   * that keeps coming (or is read slowly by a busy worker) is not cut and asked again; the activity's
   * startToCloseTimeout bounds the whole call.
   */
  timeoutMs: number;
}

/** Runs `fn` under the stream's deadline (`alive()` on each event); a hit becomes the client's timeout error (retryable). */
function withDeadline<T>(timeoutMs: number, fn: (signal: AbortSignal, alive: () => void) => Promise<T>): Promise<T> {
  const stalled = () =>
    new (openai().APIConnectionTimeoutError)({ message: `the model stream was silent for ${timeoutMs / 1000}s` });
  return withDeadlineSignal(timeoutMs, async (signal, alive) => {
    try {
      const result = await fn(signal, alive);
      if (signal.aborted) throw stalled(); // the SDK ends an aborted stream quietly
      return result;
    } catch (err) {
      if (signal.aborted) throw stalled();
      throw err;
    }
  });
}

export async function streamChat(
  client: OpenAI,
  params: ChatCompletionCreateParamsNonStreaming,
  o: StreamOptions,
  onDelta: OnDelta,
): Promise<{ message: Pick<ChatCompletionMessage, 'content' | 'tool_calls'>; usage?: CompletionUsage }> {
  return withDeadline(o.timeoutMs, async (signal, alive) => {
    const stream = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { headers: o.headers, signal },
    );
    let content: string | null = null;
    const calls: ChatCompletionMessageFunctionToolCall[] = [];
    let usage: CompletionUsage | undefined;
    let chunks = 0;
    let finished = false;
    for await (const chunk of stream) {
      alive();
      chunks++;
      if (chunk.usage) usage = chunk.usage; // the last chunk, with include_usage (no choices)
      if (chunk.choices[0]?.finish_reason) finished = true;
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        content = (content ?? '') + delta.content;
        onDelta(delta.content);
      }
      // A call's id and name come in its first fragment, its arguments in pieces, all under its index.
      for (const fragment of delta.tool_calls ?? []) {
        const call = (calls[fragment.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.function.name = fragment.function.name;
        if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
      }
    }
    if (!chunks) throw new Error(NOT_A_STREAM); // e.g. a JSON answer: it would otherwise read as an empty turn
    if (!finished) throw new Error('the model stream ended before the answer was finished'); // never a cut-off answer as the turn's
    return { message: { content, tool_calls: calls.filter(Boolean) }, ...(usage ? { usage } : {}) };
  });
}

export async function streamResponses(
  client: OpenAI,
  params: ResponseCreateParamsNonStreaming,
  o: StreamOptions,
  onDelta: OnDelta,
): Promise<Response> {
  return withDeadline(o.timeoutMs, async (signal, alive) => {
    const stream = await client.responses.create({ ...params, stream: true }, { headers: o.headers, signal });
    let final: Response | undefined;
    let events = 0;
    for await (const event of stream) {
      alive();
      events++;
      // Refusal text too: the final message joins output_text and refusal parts, so the deltas add up to it.
      if (event.type === 'response.output_text.delta' || event.type === 'response.refusal.delta') onDelta(event.delta);
      else if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
      else if (event.type === 'response.failed') {
        // A JSON call would have had the provider's error status; a stream reports it in-band, after a 200.
        throw ApplicationFailure.create({
          type: Failure.ModelServerError,
          message: `model response failed: ${event.response.error?.message ?? 'no reason given'}`,
        });
      }
    }
    if (!final) throw new Error(events ? 'the model stream ended before the response completed' : NOT_A_STREAM);
    return final;
  });
}

/** How a call streams: where its deltas go, and the whole stream's limit. */
export interface Live {
  onDelta: OnDelta;
  timeoutMs: number;
}
