// Guards shared by the project's HTTP services (the codec server, the approvals inbox): constant-time secret
// checks, CORS without credentials for wildcard origins, bounded bodies, and no public bind without authentication.
import type { IncomingMessage } from 'node:http';

/**
 * Largest codec request by default. The Web UI posts the payloads of one history event; Temporal refuses a payload
 * over 2 MB and a gRPC message over 4 MB, and base64 in JSON adds a third: 8 MiB holds any real request with room,
 * while one request can never cost the process more than that.
 */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
  constructor(readonly limitBytes: number) {
    super(`request body larger than ${limitBytes} bytes`);
  }
}

/**
 * CORS for one request. A listed origin is reflected with credentials (and `vary: origin`, so caches keep one
 * answer per origin); `*` lets any origin call, never with credentials (a reflected origin with credentials would
 * let every site on the web call with the user's cookies); anything else gets no CORS headers.
 */
export function corsHeaders(origin: string | undefined, allowed: string[]): Record<string, string> {
  if (!origin) return {};
  if (allowed.includes(origin))
    return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' };
  if (allowed.includes('*')) return { 'access-control-allow-origin': '*' };
  return {};
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost)$/i;

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export const isLoopback = (host: string): boolean => LOOPBACK.test(host);

/**
 * A service that anyone on the network could reach must authenticate: refuse to start otherwise (one line).
 * `authenticated` counts only what the server verifies itself (a token, a signed assertion), never a header a
 * client could send.
 */
export function checkBind(
  host: string,
  authenticated: boolean,
  what: string,
  hint = 'set a token, or bind to 127.0.0.1',
): void {
  if (isLoopback(host) || authenticated) return;
  throw new Error(`${what} will not listen on ${host} without authentication it can verify: ${hint}`);
}

/**
 * The request body, refused with BodyTooLarge as soon as it passes `limitBytes`: at once when content-length says
 * so, else when the streamed bytes do. What was read is dropped and the request left paused, so memory stays flat;
 * the caller answers and closes the connection (or drains it) — see codecServer.ts.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      req.pause();
      return reject(new BodyTooLarge(limitBytes));
    }
    let chunks: Buffer[] = [];
    let size = 0;
    const settle = (err?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
      chunks = [];
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= limitBytes) return void chunks.push(c);
      chunks = [];
      req.pause();
      settle(new BodyTooLarge(limitBytes));
    };
    const onEnd = () => settle();
    // The client went away before the end: without this the promise (and what was read) would wait forever.
    const onClose = () => settle(new Error('request closed before its body ended'));
    req.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose);
  });
}
