// `countersign codec-server`: the remote codec the Temporal Web UI (and `temporal --codec-endpoint`) calls to show
// payloads in the clear to people allowed to see them: large payloads fetched back from the payload store, then
// decrypted. POST /decode and /encode with the proto-JSON payload list; CORS for the UI's origin; an optional
// bearer token (COUNTERSIGN_CODEC_TOKEN); bounded bodies; no public address without the token (httpGuards.ts). A
// payload that cannot be decoded or encoded, and any internal error, gets one line with a request id: the details
// (which may name the payload store's directory or a key id) go to the log only (internalErrors.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExternalStorage, Payload, PayloadCodec } from '@temporalio/common';
import { ExternalStorageRunner } from '@temporalio/common/lib/internal-non-workflow';
import { BodyTooLarge, DEFAULT_BODY_LIMIT, checkBind, corsHeaders, readBody } from './httpGuards';
import { type LogStream, errorLogLine, internalErrorMessage, newRequestId } from './internalErrors';
import { sameSecret } from '../links/sameSecret';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
  ),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

export interface CodecServerOptions {
  /** Applied in order to encode, in reverse to decode (see storage/payloadStorage.ts). */
  codecs: PayloadCodec[];
  /** Where offloaded payloads are; /decode resolves their references first. */
  externalStorage?: ExternalStorage;
  port?: number;
  host?: string;
  /** Origins allowed by CORS, e.g. the Web UI's http://localhost:8233. */
  origins: string[];
  /** When set, requests must carry `Authorization: Bearer <token>` (compared in constant time). */
  token?: string;
  /** Largest request body (default DEFAULT_BODY_LIMIT, 8 MiB): more gets 413 and is never buffered. */
  bodyLimitBytes?: number;
  /** Where failures are logged, one JSON line each with the request id the client was given (default stderr). */
  log?: LogStream;
}

/**
 * How long the rest of a refused body is read and dropped before the 413 goes out. Closing a socket that still has
 * unread data resets it, and a client still uploading then sees a reset instead of the answer; draining (nothing
 * kept, so memory stays flat) lets it finish and read the 413. Past this, the answer goes out and the socket closes.
 */
const DRAIN_MS = 2_000;

export async function startCodecServer(o: CodecServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  checkBind(
    o.host ?? '127.0.0.1',
    Boolean(o.token),
    'the codec server',
    'set COUNTERSIGN_CODEC_TOKEN, or bind to 127.0.0.1',
  );
  const limit = o.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new Error(`the body limit must be a positive whole number of bytes, not ${o.bodyLimitBytes}`);
  const log = o.log ?? process.stderr;
  /** Logs the details under a new request id; the client's one line names only the id. */
  const logged = (err: unknown, msg: string): string => {
    const id = newRequestId();
    log.write(errorLogLine(id, msg, err));
    return id;
  };
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  /** 413 once the client stops sending (or DRAIN_MS passes), then the connection closes (`connection: close`). */
  function refuse(req: IncomingMessage, res: ServerResponse, err: BodyTooLarge) {
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      if (req.socket.destroyed) return; // the client left
      res.setHeader('connection', 'close');
      send(res, 413, { error: err.message });
    };
    const timer = setTimeout(answer, DRAIN_MS);
    req.once('end', answer).once('close', answer).once('error', answer);
    req.resume(); // no 'data' listener: each chunk is dropped as it arrives
  }
  const storage = o.externalStorage ? new ExternalStorageRunner(o.externalStorage) : undefined;
  async function decode(payloads: Payload[]): Promise<Payload[]> {
    let out = storage ? await storage.retrieve(payloads) : payloads;
    for (const codec of [...o.codecs].reverse()) out = await codec.decode(out);
    return out;
  }
  async function encode(payloads: Payload[]): Promise<Payload[]> {
    let out = payloads;
    for (const codec of o.codecs) out = await codec.encode(out);
    return out;
  }
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const origin = req.headers.origin;
    // A listed origin may send credentials; `*` lets any origin call, never with credentials.
    const cors = corsHeaders(origin, o.origins);
    for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (cors['access-control-allow-origin']) {
      res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    }
    if (req.method === 'OPTIONS') return send(res, 204);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'POST' || (path !== '/decode' && path !== '/encode'))
      return send(res, 404, { error: 'POST /decode or /encode' });
    const auth = req.headers.authorization;
    if (o.token && !sameSecret(auth?.startsWith('Bearer ') ? auth.slice(7) : undefined, o.token))
      return send(res, 401, { error: 'missing or wrong bearer token' });
    let body: Buffer;
    try {
      body = await readBody(req, limit);
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(req, res, err);
      throw err;
    }
    let payloads: Payload[];
    try {
      payloads = ((JSON.parse(body.toString('utf8')) as { payloads?: JsonPayload[] }).payloads ?? []).map(fromJson);
    } catch {
      return send(res, 400, { error: 'body must be JSON: {"payloads": [{"metadata": {...}, "data": "base64"}]}' });
    }
    try {
      const out = path === '/decode' ? await decode(payloads) : await encode(payloads);
      send(res, 200, { payloads: out.map(toJson) });
    } catch (err) {
      const what = path === '/decode' ? 'decoded' : 'encoded';
      send(res, 400, {
        error: `the payloads could not be ${what} (request ${logged(err, `payloads could not be ${what}`)})`,
      });
    }
  }
  // Codec requests are small: 30 s, not Node's 5 minutes, for a body trickled in slowly to hold a socket.
  const server = createServer(
    { requestTimeout: 30_000 },
    (req, res) =>
      void handle(req, res).catch((err: unknown) => {
        const id = logged(err, 'internal error');
        return res.headersSent || req.socket.destroyed
          ? res.destroy()
          : send(res, 500, { error: internalErrorMessage(id) });
      }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 8888, o.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return { url: `http://${address}:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
