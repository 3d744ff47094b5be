// Signed grants: a grant on a tool that needs signed decisions (or a quorum) carries a compact JWS (EdDSA/Ed25519, the
// same form as a decision token) in which an approver's key vouches for exactly that grant: agent, tool, argument
// constraints, duration, uses, expiry, and a unique id so the token makes one grant only. This module decodes the
// token and checks its claims; the signature is checked on the worker (activities/approverKeys.ts). Pure: imported
// by workflow code (no Node built-ins, no clock: the caller passes the time).
import { z } from 'zod';
import { durationMs, durationSchema } from '../../contract/approvalPolicy';
import { sameApprover } from '../../contract/approverName';
import { IAT_LEEWAY_SECONDS } from './decisionToken';
import { decodeCompactJws, quote, type DecodedJws } from './compactJws';
import { shareAcrossRuns } from '../../contract/sharedModules';
import { matchesWhere, sameJson } from '../grants/grantMatching';

export interface GrantClaims {
  /** Says what the token is for: a decision token can never pass for a grant, nor a grant token for a decision. */
  kind: 'grant';
  /** The approver who grants it; must equal the header's kid. */
  sub: string;
  agent: string;
  tool: string;
  where: Record<string, unknown>;
  /** The grant's duration as requested ("1h"); `exp` is `iat` plus it. */
  for: string;
  uses?: number;
  /** Seconds since the epoch: when it was signed, and when the grant (and the token) ends. */
  iat: number;
  exp: number;
  jti: string;
}

export type DecodedGrantToken = DecodedJws<GrantClaims>;

/** A signed grant must reach the grants workflow within this long of being signed (sign it again otherwise). */
export const GRANT_TOKEN_FRESH_SECONDS = 900;

const text = (what: string) => z.string({ error: `must be a string (${what})` }).min(1, `must not be empty (${what})`);
const seconds = () => z.number({ error: 'must be a number of seconds' }).int('must be a whole number of seconds');

const grantClaimsSchema = shareAcrossRuns('grantToken.claimsSchema', () =>
  z.object({
    kind: z.literal('grant', { error: 'must be "grant" (this is not a grant token)' }),
    sub: text('the approver'),
    agent: text('the agent'),
    tool: text('the tool'),
    where: z.record(z.string(), z.unknown(), { error: 'must be a JSON object (the argument constraints)' }),
    for: durationSchema,
    uses: z.number().int().min(1).optional(),
    iat: seconds(),
    exp: seconds(),
    jti: text('a unique token id'),
  }),
);

/** The token's key id, claims and signed bytes; or the first structural problem (the signature is not checked here). */
export const decodeGrantToken = (token: unknown): DecodedGrantToken | { problem: string } =>
  decodeCompactJws(token, 'grant token', grantClaimsSchema) as DecodedGrantToken | { problem: string };

/** What a signed grant request says: the grant as sent beside its token. */
export interface GrantTerms {
  agent: string;
  tool: string;
  where: Record<string, unknown>;
  for: string;
  uses?: number;
  grantedBy: string;
}

/**
 * The first reason the token does not authorize this grant now, or undefined when it does (its signature aside).
 * Who signed, then what for, then when, then replay.
 */
export function checkGrantClaims(
  t: DecodedGrantToken,
  terms: GrantTerms,
  nowSeconds: number,
  jtiUsed: (jti: string) => boolean,
): string | undefined {
  const c = t.claims;
  if (c.sub !== t.kid) return `grant token sub ${quote(c.sub)} does not match its key id ${quote(t.kid)}`;
  if (!sameApprover(c.sub, terms.grantedBy))
    return `grant token is signed by ${quote(c.sub)}, but the grant names ${quote(terms.grantedBy)} as its approver`;
  if (c.agent !== terms.agent || c.tool !== terms.tool)
    return `grant token is for ${quote(`${c.agent} ${c.tool}`)}, not ${quote(`${terms.agent} ${terms.tool}`)}`;
  if (!sameJson(c.where, terms.where))
    return "grant token where does not match the grant's constraints (sign the grant exactly as it is sent)";
  if (c.for !== terms.for || c.uses !== terms.uses)
    return 'grant token for or uses does not match the grant (sign the grant exactly as it is sent)';
  if (c.exp !== c.iat + Math.floor(durationMs(c.for) / 1000)) return 'grant token exp must be iat plus its for';
  if (c.iat > nowSeconds + IAT_LEEWAY_SECONDS) return 'grant token iat is in the future';
  if (c.iat < nowSeconds - GRANT_TOKEN_FRESH_SECONDS)
    return `grant token was signed more than ${GRANT_TOKEN_FRESH_SECONDS / 60} minutes ago: sign the grant again`;
  if (c.exp <= nowSeconds) return 'grant token has expired';
  if (jtiUsed(c.jti)) return `grant token jti ${quote(c.jti)} was already used: sign the grant again`;
  return undefined;
}

/**
 * The first reason a grant's token does not cover this call now, or undefined: checked again by the planner when a
 * grant is used, so a grant that reached the grants workflow by another path (a crafted start input) approves nothing.
 * `params` are the call's arguments as planning parsed them against the tool's schema.
 */
export function checkGrantUse(
  t: DecodedGrantToken,
  call: { agent: string; tool: string; params: Record<string, unknown>; grantedBy: string; nowSeconds: number },
): string | undefined {
  const c = t.claims;
  if (c.sub !== t.kid || !sameApprover(c.sub, call.grantedBy))
    return `grant token is signed by ${quote(t.kid)}, not by ${quote(call.grantedBy)}`;
  if (c.agent !== call.agent || c.tool !== call.tool)
    return `grant token is for ${quote(`${c.agent} ${c.tool}`)}, not ${quote(`${call.agent} ${call.tool}`)}`;
  if (!matchesWhere(c.where, call.params)) return "the call's arguments are outside the signed grant's constraints";
  if (c.exp <= call.nowSeconds) return 'grant token has expired';
  return undefined;
}
