// Signed decisions: a decision may carry a compact JWS (compactJws.ts) in which an approver's key vouches for exactly
// one outcome of one call of one run. This module names its claims and checks them; the signature is checked on the
// worker (activities/approverKeys.ts). Imported by workflow code, so it is pure: no clock (the caller passes the time).
import { sha256 } from '@noble/hashes/sha256';
import { z } from 'zod';
import { shareAcrossRuns } from '../../contract/sharedModules';
import { base64urlEncode, decodeCompactJws, quote, type DecodedJws } from './compactJws';

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

export type DecodedToken = DecodedJws<DecisionClaims>;

/** How far ahead of our clock an approver's clock may run. */
export const IAT_LEEWAY_SECONDS = 300;

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
    args: z
      .string({ error: 'must be a string (the arguments digest)' })
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be base64url of a SHA-256 digest (43 characters)'),
    fp: z
      .string({ error: 'must be a string (the fingerprint digest)' })
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be base64url of a SHA-256 digest (43 characters)')
      .optional(),
    iat: seconds(),
    exp: seconds(),
    jti: text('a unique token id'),
  }),
);

/** The token's key id, claims and signed bytes; or the first structural problem (the signature is not checked here). */
export const decodeDecisionToken = (token: unknown): DecodedToken | { problem: string } =>
  decodeCompactJws(token, 'token', claimsSchema);

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
  expected: {
    wf: string;
    call: string;
    decision: DecisionClaims['decision'];
    arguments: string;
    fingerprint?: string;
    nowSeconds: number;
    jtiUsed: (jti: string) => boolean;
  },
): string | undefined {
  const c = t.claims;
  if (c.sub !== t.kid) return `token sub ${quote(c.sub)} does not match its key id ${quote(t.kid)}`;
  if (c.wf !== expected.wf) return `token is for run ${quote(c.wf)}, not ${quote(expected.wf)}`;
  if (c.call !== expected.call) return `token is for call ${quote(c.call)}, not ${quote(expected.call)}`;
  if (c.decision !== expected.decision)
    return `token says ${quote(c.decision)}, the decision is ${quote(expected.decision)}`;
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
export function timeBoundProblem(
  t: { exp: number; jti: string },
  nowSeconds: number,
  jtiUsed: (jti: string) => boolean,
): string | undefined {
  if (t.exp <= nowSeconds) return expiredText(t.exp);
  if (jtiUsed(t.jti)) return usedText(t.jti);
  return undefined;
}
