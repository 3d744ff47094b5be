// The model-delta relay: a side channel from the worker to readers, so a model's text reaches them while the
// modelTurn activity still runs, without a history event (or a payload) per delta. An in-process hub plus a tiny
// SSE server: GET /runs/<workflow id>/turns/<turn> replays the turn's deltas so far, then streams the rest, then
// `event: end`. Best effort and volatile: a turn's buffer is dropped shortly after it ends, and the durable
// events (the activity's result) carry the final text. The activity advertises the URL in its one heartbeat, with the
// turn's token: a feed is read only by who can read the run (its pending activity), not by whoever guesses a run id.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameSecret } from '../../links/sameSecret';
import { ConfigError } from '../../temporal.config';

export interface DeltaRelayOptions {
  /** Interface to listen on (COUNTERSIGN_DELTA_HOST); loopback by default: deltas are model output, in clear. */
  host?: string;
  /** COUNTERSIGN_DELTA_PORT; 0 = any free port. */
  port?: number;
  /** COUNTERSIGN_DELTA_PUBLIC_URL: what readers should dial, when it is not http://host:port (proxies, containers). */
  publicUrl?: string;
  /** How long an ended turn's deltas stay for late readers. */
  lingerMs?: number;
  /** How long a reader of a turn the relay does not know yet waits for it (it may be early) before a 404. */
  waitMs?: number;
}

export interface DeltaRelay {
  /** Base URL readers dial (no trailing slash). */
  url: string;
  /** The URL a turn's readers dial: its path and its token (unguessable; valid while this worker holds the feed). */
  feedUrl(workflowId: string, turn: number): string;
  /** A turn (attempt) starts: its feed exists from now on, empty; a previous attempt's buffer is dropped. */
  begin(workflowId: string, turn: number): void;
  publish(workflowId: string, turn: number, delta: string): void;
  /** The turn's model call is over (completed or failed): readers get `event: end`. */
  end(workflowId: string, turn: number): void;
  close(): Promise<void>;
}

export const deltaPath = (workflowId: string, turn: number) => `/runs/${encodeURIComponent(workflowId)}/turns/${turn}`;

interface Feed {
  frames: string[];
  ended: boolean;
  readers: Set<ServerResponse>;
  /** When the turn ended (ms): the sweeper drops the buffer lingerMs later. */
  endedAt?: number;
}

const END_FRAME = 'event: end\ndata: {}\n\n';
const KEEPALIVE_MS = 15_000; // an SSE comment now and then, so proxies keep a quiet stream (slow first token) open

export async function startDeltaRelay(options: DeltaRelayOptions = {}): Promise<DeltaRelay> {
  const { host = '127.0.0.1', port = 0, lingerMs = 30_000, waitMs = 5_000 } = options;
  const feeds = new Map<string, Feed>();
  const waiters = new Map<string, Set<(feed: Feed | undefined) => void>>();
  const keyOf = (workflowId: string, turn: number) => `${turn}:${workflowId}`;
  // One secret per relay: a turn's token is derived from it, so an early reader's token is checked before its feed exists.
  const secret = randomBytes(32);
  const tokenOf = (key: string) => createHmac('sha256', secret).update(key).digest('base64url');
  const lingered = (feed: Feed) => feed.endedAt !== undefined && Date.now() - feed.endedAt >= lingerMs;

  const write = (res: ServerResponse, frame: string) => {
    try {
      if (!res.destroyed) res.write(frame);
    } catch {
      // a reader that went away mid-write: its 'close' removes it
    }
  };
  const finish = (feed: Feed) => {
    for (const res of feed.readers) res.end(END_FRAME);
    feed.readers.clear();
  };

  function begin(workflowId: string, turn: number): Feed {
    const key = keyOf(workflowId, turn);
    const previous = feeds.get(key);
    if (previous) finish(previous);
    const feed: Feed = { frames: [], ended: false, readers: new Set() };
    feeds.set(key, feed);
    for (const wake of waiters.get(key) ?? []) wake(feed);
    waiters.delete(key);
    return feed;
  }

  /** The feed, or once it appears (within waitMs), or undefined. */
  function feedOf(key: string, res: ServerResponse): Promise<Feed | undefined> {
    const known = feeds.get(key);
    if (known && lingered(known)) return Promise.resolve(undefined); // over, and its linger too (the sweeper is behind)
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => {
      const set = waiters.get(key) ?? new Set();
      waiters.set(key, set);
      const wake = (feed: Feed | undefined) => {
        clearTimeout(timer);
        set.delete(wake);
        if (!set.size && waiters.get(key) === set) waiters.delete(key);
        resolve(feed);
      };
      const timer = setTimeout(() => wake(undefined), waitMs);
      set.add(wake);
      res.once('close', () => wake(undefined)); // the reader gave up
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requested = new URL(req.url ?? '/', 'http://relay');
    const match = /^\/runs\/([^/]+)\/turns\/(\d+)$/.exec(requested.pathname);
    if (req.method !== 'GET' || !match) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /runs/<runId>/turns/<turn>\n');
      return;
    }
    const key = keyOf(decodeURIComponent(match[1]!), Number(match[2]));
    const token = requested.searchParams.get('token') ?? undefined;
    if (!sameSecret(token, tokenOf(key))) {
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(
          "refused: a turn's deltas need the token in the URL its run advertises (the model call's heartbeat: describe, or the client library)\n",
        );
      return;
    }
    const feed = await feedOf(key, res);
    if (res.destroyed) return;
    if (!feed) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such turn on this worker (over, or never here)\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const frame of feed.frames) write(res, frame);
    if (feed.ended) return void res.end(END_FRAME);
    feed.readers.add(res);
    res.once('close', () => feed.readers.delete(res));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(
        new ConfigError(
          `the model-delta relay cannot listen on ${host}:${port} (${err.message}): set COUNTERSIGN_DELTA_HOST/COUNTERSIGN_DELTA_PORT, or COUNTERSIGN_DELTA_RELAY=off`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  server.unref(); // the relay never keeps a process alive on its own
  const keepalive = setInterval(() => {
    for (const feed of feeds.values()) for (const res of feed.readers) write(res, ': keepalive\n\n');
  }, KEEPALIVE_MS).unref();
  // Bounded memory: late readers get a whole turn for lingerMs after it ends, then the buffer goes. One sweeper made
  // here, not a timer per turn: a timer made inside the model activity would keep that activity's whole context
  // (request, response, logger) alive for as long as it waits.
  const sweeper = setInterval(
    () => {
      for (const [key, feed] of feeds) if (lingered(feed)) feeds.delete(key);
    },
    Math.max(50, Math.min(lingerMs / 2, KEEPALIVE_MS)),
  ).unref();

  const address = server.address() as AddressInfo;
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = (options.publicUrl ?? `http://${shownHost}:${address.port}`).replace(/\/+$/, '');
  return {
    url,
    feedUrl: (workflowId, turn) => `${url}${deltaPath(workflowId, turn)}?token=${tokenOf(keyOf(workflowId, turn))}`,
    begin(workflowId, turn) {
      begin(workflowId, turn);
    },
    publish(workflowId, turn, delta) {
      if (!delta) return;
      const feed = feeds.get(keyOf(workflowId, turn)) ?? begin(workflowId, turn);
      if (feed.ended) return; // a late delta of an attempt that is over
      const frame = `data: ${JSON.stringify({ delta, at: new Date().toISOString() })}\n\n`;
      feed.frames.push(frame);
      for (const res of feed.readers) write(res, frame);
    },
    end(workflowId, turn) {
      const key = keyOf(workflowId, turn);
      const feed = feeds.get(key);
      if (!feed || feed.ended) return;
      feed.ended = true;
      finish(feed);
      feed.endedAt = Date.now();
    },
    async close() {
      clearInterval(keepalive);
      clearInterval(sweeper);
      for (const feed of feeds.values()) finish(feed);
      feeds.clear();
      for (const set of [...waiters.values()]) for (const wake of [...set]) wake(undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
