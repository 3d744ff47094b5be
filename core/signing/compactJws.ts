// The compact JWS (RFC 7515, EdDSA/Ed25519) both signed decisions and signed grants travel in: base64url, and one
// structural decoding that names the first problem. Which claims a token must hold is the caller's schema; the
// signature is checked on the worker (activities/approverKeys.ts), which has node:crypto. Imported by workflow
// code, so it is pure: no Node built-ins, no Buffer or atob, no clock.
import type { z } from 'zod';

export const MAX_TOKEN_LENGTH = 4096;

export interface DecodedJws<C> {
  kid: string;
  claims: C;
  /** header.payload, the signed bytes as text */
  signingInput: string;
  /** base64url */
  signature: string;
}

// ── base64url (RFC 4648 §5, no padding) ──────────────────────────────────────────────────────────────────────
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += ALPHABET[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}

/** The bytes, or undefined for text that is not unpadded base64url. */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of text) {
    const v = VALUE.get(c);
    if (v === undefined) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** At most `max` characters of `value`, quoted and escaped so a message stays one line. */
export function quote(value: unknown, max = 100): string {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const clipped = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(clipped).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** The JSON object a token part holds, or undefined. */
function jsonPart(part: string): Record<string, unknown> | undefined {
  const bytes = base64urlDecode(part);
  if (!bytes) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The token's key id, claims (checked by `claims`) and signed bytes; or the first structural problem, its words
 * starting with `label` ("token", "grant token"). The signature is not checked here.
 */
export function decodeCompactJws<S extends z.ZodType>(
  token: unknown,
  label: string,
  claims: S,
): DecodedJws<z.infer<S>> | { problem: string } {
  if (typeof token !== 'string') return { problem: `${label} must be a string (a compact JWS)` };
  if (token.length > MAX_TOKEN_LENGTH) return { problem: `${label} is longer than ${MAX_TOKEN_LENGTH} characters` };
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p)))
    return { problem: `${label} is not a compact JWS (header.payload.signature)` };
  const [headerPart, payloadPart, signature] = parts as [string, string, string];

  const header = jsonPart(headerPart);
  if (!header) return { problem: `${label} header is not base64url-encoded JSON object` };
  if (header.alg !== 'EdDSA')
    return {
      problem: `${label} header alg must be "EdDSA", got ${header.alg === undefined ? 'none' : quote(header.alg, 20)}`,
    };
  if (typeof header.kid !== 'string' || header.kid === '')
    return { problem: `${label} header kid must be a non-empty string (the approver's key id)` };
  // RFC 7515 §4.1.11: extensions the recipient does not understand must make it reject the token.
  if (header.crit !== undefined) return { problem: `${label} header crit is not supported` };

  const payload = jsonPart(payloadPart);
  if (!payload) return { problem: `${label} payload is not base64url-encoded JSON object` };
  const parsed = claims.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const claim = issue.path.map(String).join('.');
    const message =
      issue.path.length === 1 && payload[issue.path[0] as string] === undefined ? 'is missing' : issue.message;
    return { problem: `${label} payload: ${claim} ${message}` };
  }
  if (base64urlDecode(signature)?.length !== 64)
    return { problem: `${label} signature must be 64 bytes (an Ed25519 signature)` };
  return { kid: header.kid, claims: parsed.data, signingInput: `${headerPart}.${payloadPart}`, signature };
}
