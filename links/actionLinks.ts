// One-click action links: `<public url>/links/<token>` where the token is an HMAC-signed, expiring claim bound to
// one run, one call, one action and the call's arguments (their SHA-256). The worker mints them for notifications;
// `countersign serve` checks them (both hold COUNTERSIGN_LINK_SECRET). A link is a capability only together with
// the server's own identity check: opening it shows a confirmation page; the POST from that page decides, once.
import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { argsDigest } from '../core/signing/decisionToken';
import { sameSecret } from './sameSecret';
import type { YesNo } from '../contract/decisionWords';

export type LinkAction = YesNo | 'view';

const claimsSchema = z.strictObject({
  wf: z.string().min(1),
  call: z.string().min(1),
  act: z.enum(['approve', 'reject', 'view']),
  args: z.string(),
  /** For a call whose tool fingerprints its target: the fingerprint's digest (a link cannot decide a changed target). */
  fp: z.string().optional(),
  exp: z.number().int(),
  id: z.string().min(1).max(100),
});
export type LinkClaims = z.infer<typeof claimsSchema>;

/** Links stay valid until the call expires, and at most this long (COUNTERSIGN_LINK_TTL). */
export const DEFAULT_LINK_TTL_SECONDS = 7 * 24 * 3600;

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export function mintLinkToken(secret: string, claims: LinkClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The link's claims, or why it cannot be used (one line a person can act on). */
export function readLinkToken(
  secret: string,
  token: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): { claims: LinkClaims } | { problem: string } {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length || token.length > 2048)
    return { problem: 'This link is not valid: it was cut or changed. Open the approval from the inbox instead.' };
  if (!sameSecret(signature, mac(secret, payload)))
    return {
      problem:
        'This link is not valid: it was changed or signed by another server. Open the approval from the inbox instead.',
    };
  let parsed: ReturnType<typeof claimsSchema.safeParse>;
  try {
    parsed = claimsSchema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return { problem: 'This link is not valid. Open the approval from the inbox instead.' };
  }
  if (!parsed.success) return { problem: 'This link is not valid. Open the approval from the inbox instead.' };
  if (parsed.data.exp <= nowSeconds)
    return {
      problem: `This link expired at ${new Date(parsed.data.exp * 1000).toISOString()}. Open the approval from the inbox instead.`,
    };
  return { claims: parsed.data };
}

export interface LinkSettings {
  /** COUNTERSIGN_PUBLIC_URL: where people reach `countersign serve`, e.g. https://approvals.example.com */
  publicUrl: string;
  /** COUNTERSIGN_LINK_SECRET: shared by the workers and the server. */
  secret: string;
  /** COUNTERSIGN_LINK_TTL (seconds): the longest a link lives, whatever the call's expiry. */
  maxTtlSeconds?: number;
}

type LinkedCall = { workflowId: string; callId: string; arguments: string; expiresAt?: string; fingerprint?: string };

/** A fresh token (its own single-use id) for one action on one waiting call, expiring with the call. */
function tokenFor(s: LinkSettings, call: LinkedCall, act: LinkAction, nowMs: number): string {
  const max = Math.floor(nowMs / 1000) + (s.maxTtlSeconds ?? DEFAULT_LINK_TTL_SECONDS);
  const exp = call.expiresAt ? Math.min(max, Math.floor(Date.parse(call.expiresAt) / 1000)) : max;
  const fp = call.fingerprint !== undefined ? { fp: argsDigest(call.fingerprint) } : {};
  return mintLinkToken(s.secret, {
    wf: call.workflowId,
    call: call.callId,
    act,
    args: argsDigest(call.arguments),
    ...fp,
    exp,
    id: randomUUID(),
  });
}

/** Why a link or button made for a call cannot decide it as it waits now (other arguments, a changed target), if so. */
export function linkMismatch(
  claims: LinkClaims,
  call: { arguments: string; fingerprint?: string },
): 'arguments' | 'target' | undefined {
  if (argsDigest(call.arguments) !== claims.args) return 'arguments';
  if (claims.fp !== (call.fingerprint !== undefined ? argsDigest(call.fingerprint) : undefined)) return 'target';
  return undefined;
}

/** Approve, reject and view links for one waiting call. */
export function actionLinks(s: LinkSettings, call: LinkedCall, nowMs = Date.now()): Record<LinkAction, string> {
  const base = s.publicUrl.replace(/\/+$/, '');
  const link = (act: LinkAction) => `${base}/links/${tokenFor(s, call, act, nowMs)}`;
  return { approve: link('approve'), reject: link('reject'), view: link('view') };
}

/**
 * The `value`s of Slack's interactive Approve / Reject buttons: link tokens of their own (ids apart from the
 * links'), which Slack posts back to `countersign serve` at /slack/actions.
 */
export function buttonTokens(
  s: LinkSettings,
  call: LinkedCall,
  nowMs = Date.now(),
): { approve: string; reject: string } {
  return { approve: tokenFor(s, call, 'approve', nowMs), reject: tokenFor(s, call, 'reject', nowMs) };
}
