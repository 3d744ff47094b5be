// Signed decisions: a decision may carry a compact JWS (RFC 7515, EdDSA/Ed25519) in which an approver's key vouches
// for exactly one outcome of one call of one run. This module decodes the token and checks its claims; the
// signature is checked on the worker (activities/approverKeys.ts), which has node:crypto. Imported by workflow code,
// so it is pure: no Node built-ins, no Buffer or atob, no clock (the caller passes the time).
import { sha256 } from '@noble/hashes/sha256';
import { z } from 'zod';
import { shareAcrossRuns } from '../../contract/sharedModules';

export interface DecisionClaims {
  /** The approver; must equal the header's kid. */
  sub: string;
  /** Workflow id of the run. */
  wf: string;
  /** The call's id. */
  call: string;
  decision: 'approve' | 'reject';
  /** argsDigest of the call's arguments text. */
  args: string;
  /** argsDigest of the call's fingerprint, for a call whose tool fingerprints its target (PendingApproval.fingerprint). */
  fp?: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  jti: string;
}

export interface DecodedToken {
  kid: string;
  claims: DecisionClaims;
  /** header.payload, the signed bytes as text */
  signingInput: string;
  /** base64url */
  signature: string;
}

export const MAX_TOKEN_LENGTH = 4096;
/** How far ahead of our clock an approver's clock may run. */
export const IAT_LEEWAY_SECONDS = 300;

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

/** base64url (no padding) of SHA-256 of the UTF-8 bytes: what a token's `args` claim must be. */
export function argsDigest(argumentsText: string): string {
  return base64urlEncode(sha256(new TextEncoder().encode(argumentsText)));
}

// ── decoding ─────────────────────────────────────────────────────────────────────────────────────────────────
const seconds = () => z.number({ error: 'must be a number of seconds' }).int('must be a whole number of seconds');
const text = (what: string) => z.string({ error: `must be a string (${what})` }).min(1, `must not be empty (${what})`);

// Extra claims (aud, nbf …) are allowed and ignored; only these bind the decision.
const claimsSchema = shareAcrossRuns('decisionToken.claimsSchema', () =>
  z.object({
    sub: text('the approver'),
    wf: text('the workflow id'),
    call: text('the call id'),
    decision: z.enum(['approve', 'reject'], { error: 'must be "approve" or "reject"' }),
    args: z.string({ error: 'must be a string (the arguments digest)' }).regex(/^[A-Za-z0-9_-]{43}$/, 'must be base64url of a SHA-256 digest (43 characters)'),
    fp: z.string({ error: 'must be a string (the fingerprint digest)' }).regex(/^[A-Za-z0-9_-]{43}$/, 'must be base64url of a SHA-256 digest (43 characters)').optional(),
    iat: seconds(),
    exp: seconds(),
    jti: text('a unique token id'),
  }),
);

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
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The token's key id, claims and signed bytes; or the first structural problem (the signature is not checked here). */
export function decodeDecisionToken(token: unknown): DecodedToken | { problem: string } {
  if (typeof token !== 'string') return { problem: 'token must be a string (a compact JWS)' };
  if (token.length > MAX_TOKEN_LENGTH) return { problem: `token is longer than ${MAX_TOKEN_LENGTH} characters` };
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return { problem: 'token is not a compact JWS (header.payload.signature)' };
  const [headerPart, payloadPart, signature] = parts as [string, string, string];

  const header = jsonPart(headerPart);
  if (!header) return { problem: 'token header is not base64url-encoded JSON object' };
  if (header.alg !== 'EdDSA') return { problem: `token header alg must be "EdDSA", got ${header.alg === undefined ? 'none' : quote(header.alg, 20)}` };
  if (typeof header.kid !== 'string' || header.kid === '') return { problem: "token header kid must be a non-empty string (the approver's key id)" };
  // RFC 7515 §4.1.11: extensions the recipient does not understand must make it reject the token.
  if (header.crit !== undefined) return { problem: 'token header crit is not supported' };

  const payload = jsonPart(payloadPart);
  if (!payload) return { problem: 'token payload is not base64url-encoded JSON object' };
  const parsed = claimsSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const claim = issue.path.map(String).join('.');
    const message = issue.path.length === 1 && payload[issue.path[0] as string] === undefined ? 'is missing' : issue.message;
    return { problem: `token payload: ${claim} ${message}` };
  }
  if (base64urlDecode(signature)?.length !== 64) return { problem: 'token signature must be 64 bytes (an Ed25519 signature)' };
  return { kid: header.kid, claims: parsed.data, signingInput: `${headerPart}.${payloadPart}`, signature };
}

// ── claims ───────────────────────────────────────────────────────────────────────────────────────────────────
function isoSeconds(s: number): string {
  const d = new Date(s * 1000); // not the clock: a fixed instant, deterministic in the workflow sandbox
  return Number.isNaN(d.getTime()) ? `${s} s since the epoch` : d.toISOString();
}

/**
 * The first reason the token does not authorize this decision, or undefined when it does. The order matters to
 * people reading it: who signed, then what for, then when, then replay.
 */
export function checkDecisionClaims(
  t: DecodedToken,
  expected: { wf: string; call: string; decision: 'approve' | 'reject'; arguments: string; fingerprint?: string; nowSeconds: number; jtiUsed: (jti: string) => boolean },
): string | undefined {
  const c = t.claims;
  if (c.sub !== t.kid) return `token sub ${quote(c.sub)} does not match its key id ${quote(t.kid)}`;
  if (c.wf !== expected.wf) return `token is for run ${quote(c.wf)}, not ${quote(expected.wf)}`;
  if (c.call !== expected.call) return `token is for call ${quote(c.call)}, not ${quote(expected.call)}`;
  if (c.decision !== expected.decision) return `token says ${quote(c.decision)}, the decision is ${quote(expected.decision)}`;
  if (c.args !== argsDigest(expected.arguments))
    return "token args do not match the call's arguments (sign the arguments exactly as pendingApprovals shows them, or the edited arguments when editing)";
  if (expected.fingerprint !== undefined && c.fp !== argsDigest(expected.fingerprint))
    return "token fp does not match the call's fingerprint: what the call acts on changed since it was signed (sign it again for the fingerprint pendingApprovals shows)";
  if (c.exp <= expected.nowSeconds) return expiredText(c.exp);
  if (c.iat > expected.nowSeconds + IAT_LEEWAY_SECONDS) return 'token iat is in the future';
  if (expected.jtiUsed(c.jti)) return usedText(c.jti);
  return undefined;
}

const expiredText = (exp: number) => `token expired at ${isoSeconds(exp)}`;
const usedText = (jti: string) => `token jti ${quote(jti)} was already used`;

/**
 * The claims that can stop holding after a token was read (its expiry passes, its id is used by another decision):
 * checked again, without decoding the token again, when asynchronous checks ran in between.
 */
export function timeBoundProblem(t: { exp: number; jti: string }, nowSeconds: number, jtiUsed: (jti: string) => boolean): string | undefined {
  if (t.exp <= nowSeconds) return expiredText(t.exp);
  if (jtiUsed(t.jti)) return usedText(t.jti);
  return undefined;
}
