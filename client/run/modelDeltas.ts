// A model turn's text deltas while it runs, from the worker's delta relay (activities/model/deltaRelay.ts), never from
// history. The modelTurn activity says where its feed is in its one heartbeat; describe() shows pending
// activities' heartbeat details, so a few describes find the feed, then one SSE stream carries the deltas.
// Best effort: a turn already over, a worker without a relay, or a relay out of reach yield nothing, and the
// durable events (the turn's message) carry the final text either way.
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { DeltaHeartbeat } from '../../contract/runEvents';
import { callUnder, pause } from './eventFollowing';

export interface ModelDelta {
  delta: string;
  /** When the worker received it from the provider (ISO). */
  at: string;
}

export interface FollowModelDeltasOptions {
  signal?: AbortSignal;
  /** How long to look for the turn's feed (its activity may not have started yet); default 4 s. */
  waitMs?: number;
}

const MAX_DESCRIBES = 5; // called once per model turn: a handful of describes, never a polling loop
const FIRST_PAUSE_MS = 250;

/** The SSE URL of the turn's feed, or undefined when the turn is over or never advertises one within waitMs. */
async function feedUrl(
  client: Client,
  workflowId: string,
  turn: number,
  waitMs: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; attempt < MAX_DESCRIBES && !signal?.aborted; attempt++) {
    const description = await callUnder(client, signal, () => handle.describe());
    if (description?.status.name !== 'RUNNING') return undefined; // aborted, or the run is over
    let later = false;
    for (const activity of description.raw.pendingActivities ?? []) {
      const payloads = activity.heartbeatDetails?.payloads;
      if (activity.activityType?.name !== 'modelTurn' || !payloads?.length) continue;
      const details = await decodeFromPayloadsAtIndex<Partial<DeltaHeartbeat> | undefined>(
        client.options.loadedDataConverter,
        0,
        payloads,
      ).catch(() => undefined);
      if (details?.turn === turn && typeof details.deltas === 'string') return details.deltas;
      if (typeof details?.turn === 'number' && details.turn > turn) later = true;
    }
    if (later) return undefined; // the run is past that turn
    const wait = Math.min(FIRST_PAUSE_MS * 2 ** attempt, deadline - Date.now());
    if (wait <= 0) return undefined;
    await pause(wait, signal);
  }
  return undefined;
}

/** Parses SSE frames off a byte stream: each complete frame as its event name (default `message`) and data. */
async function* sseFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true }).replace(/\r\n/g, '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

/**
 * Follows model turn `turn` of run `workflowId`: yields its text deltas in order (from the start of the turn, however
 * late the reader comes while it runs) until the model call ends. Returns without yielding if the turn is already
 * over, or does not advertise a feed within `waitMs` (relay off, older workflow code). Ends quietly on `signal`.
 */
export async function* followModelDeltas(
  client: Client,
  workflowId: string,
  turn: number,
  opts: FollowModelDeltasOptions = {},
): AsyncGenerator<ModelDelta> {
  const url = await feedUrl(client, workflowId, turn, opts.waitMs ?? 4_000, opts.signal);
  if (!url || opts.signal?.aborted) return;
  const stop = new AbortController(); // also ends the request when the consumer stops early
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  try {
    const res = await fetch(url, { signal, headers: { accept: 'text/event-stream' } });
    if (!res.ok || !res.body) return; // 404: the relay no longer (or never) had that turn
    for await (const frame of sseFrames(res.body)) {
      if (frame.event === 'end') return;
      if (frame.event !== 'message') continue;
      const parsed = JSON.parse(frame.data) as Partial<ModelDelta>;
      if (typeof parsed.delta === 'string') yield { delta: parsed.delta, at: String(parsed.at) };
    }
  } catch {
    // Best effort: a relay out of reach, gone mid-stream (worker stopped) or garbled ends the deltas, and so does
    // the caller's signal; the durable events carry the text.
  } finally {
    stop.abort();
  }
}
