// Guards shared by the project's HTTP services (the codec server, the approvals inbox): constant-time secret
// checks, CORS without credentials for wildcard origins, bounded bodies, and no public bind without authentication.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Codec requests carry payload lists; 8 MiB holds any payload Temporal accepts (2 MB) several times over. */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
}

/** Constant time, whatever the lengths: the digests are compared, not the strings. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** CORS for one request: a listed origin is reflected with credentials; `*` allows any origin, never with credentials. */
export function corsHeaders(origin: string | undefined, allowed: string[]): Record<string, string> {
  if (!origin) return {};
  if (allowed.includes(origin)) return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' };
  if (allowed.includes('*')) return { 'access-control-allow-origin': '*' };
  return {};
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|\[::1\])$/;

/** A service that anyone on the network could reach must authenticate: refuse to start otherwise. */
export function checkBind(host: string, authConfigured: boolean, what: string, hint = 'set a token or an identity header, or bind to 127.0.0.1'): void {
  if (LOOPBACK.test(host) || authConfigured) return;
  throw new Error(`${what} will not listen on ${host} without a token or identity header: ${hint}`);
}

/** The request body, refused (BodyTooLarge) as soon as it passes `limitBytes`; what was read is dropped. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) return reject(new BodyTooLarge(`request body larger than ${limitBytes} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limitBytes) {
        chunks.length = 0;
        req.pause();
        reject(new BodyTooLarge(`request body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
