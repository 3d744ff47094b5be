// The model gateway: one activity that calls the model through the official `openai` client, over the Responses
// API or Chat Completions, and returns provider-neutral items. Temporal owns retries (maxRetries: 0 here):
// 429/5xx/network errors are thrown as retryable failures, other 4xx as non-retryable ones with the provider's text.
// The API key lives in this process only; nothing key-related is returned to the workflow.
// With the worker's delta relay, the call streams (modelStream.ts): text deltas go to the relay, never to history.
import { Context } from '@temporalio/activity';
import { Failure } from '../../contract/failureTypes';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ModelEndpoint } from '../../temporal.config';
import { METRIC_NAMES } from '../../core/run/meteredEvents';
import type { ModelTurn } from '../../contract/items';
import type { ModelRequest } from './modelRequest';
import type { DeltaHeartbeat } from '../../contract/runEvents';
import type { DeltaRelay } from './deltaRelay';
import type { Live } from './modelStream';
import { callChat } from './chatApi';
import { callResponses } from './responsesApi';
import { openai } from './openaiModule';

export { type ModelRequest, RUN_ID_HEADER } from './modelRequest';

/** Maps a provider error to a Temporal failure: retryable unless retrying cannot help. */
function toFailure(err: unknown, where: string): never {
  const OpenAI = openai();
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

/**
 * An attempt after the first asks the model again for the same turn: the attempt before failed, timed out, or its
 * worker died, maybe after the model had answered (a model turn is at-least-once). Counted in the worker's metrics
 * and said in its log; history has each attempt too (ActivityTaskStarted: attempt, lastFailure).
 */
export function noteRetry(agent: string, turn: number | undefined): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return; // called outside an activity (unit tests)
  }
  const { attempt } = ctx.info;
  if (attempt <= 1) return;
  ctx.log.warn('the model is asked again for this turn', { agent, turn, attempt });
  ctx.metricMeter
    .createCounter(METRIC_NAMES.modelRetries, '1', 'model turns asked again (attempts after the first), by agent')
    .add(1, { agent });
}

/** `relay`: the worker's delta relay (activities/model/deltaRelay.ts); without it, calls do not stream. */
export function createModelActivities(settings: ModelEndpoint, relay?: DeltaRelay) {
  let made: OpenAI | undefined;
  const clientOf = () =>
    (made ??= new (openai())({
      // The SDK refuses to start without a key; a missing one surfaces as the provider's 401 instead.
      apiKey: settings.apiKey ?? 'missing-OPENAI_API_KEY',
      baseURL: settings.baseURL,
      maxRetries: 0,
      timeout: settings.requestTimeoutMs,
    }));
  const where = settings.baseURL ?? 'the OpenAI API';
  return {
    /** One model turn. Retried by Temporal per the workflow's retry policy. */
    async callModel(req: ModelRequest): Promise<ModelTurn & { responseId?: string }> {
      const model = req.model ?? settings.model;
      if (req.conversation && settings.api === 'chat')
        throw ApplicationFailure.create({
          type: Failure.ModelRequestRejected,
          message: `this run's conversation is kept by the provider (conversation: 'server'), which needs the Responses API, and this worker uses Chat Completions: run it on a worker with COUNTERSIGN_MODEL_API=responses`,
        });
      // A local activity (fast mode) has no heartbeat, so no reader could find a feed: it does not stream.
      const live =
        relay && req.turn !== undefined && !inLocalActivity()
          ? openFeed(relay, req.workflowId, req.turn, settings.requestTimeoutMs)
          : undefined;
      try {
        const client = clientOf();
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
