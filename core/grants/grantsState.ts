// Standing grants: an approver approves a pattern of calls (agent, tool, argument constraints) for a while, instead
// of one call. The pure state of the `countersignGrants` workflow: adding a grant, finding the one a call may use
// (matching: grantMatching.ts) and consuming a use (once per call, however often an activity retries), revoking and
// forgetting old entries. Which tools may be granted at all: grantableTools.ts. No Temporal imports: the workflow
// wires it to updates; unit tests drive it directly.
import { durationMs } from '../../contract/approvalPolicy';
import {
  type AddGrantRequest,
  type Grant,
  type GrantsState,
  type GrantView,
  MAX_GRANT_MS,
  type RevokeGrantRequest,
  type UseGrantRequest,
  type UseGrantResult,
} from '../../contract/grantMessages';
import { amongApprovers, sameApprover } from '../../contract/approverName';
import { argumentsOf, matchesWhere } from './grantMatching';
import { Failure } from '../../contract/failureTypes';
import { Refusal } from '../refusal';

/** Ended grants are kept this long (revoke can still say why it is too late), then dropped. */
export const GRANT_RETENTION_MS = 24 * 3600_000;
/** Call keys are remembered this long (a model turn's retries end well within it), at most MAX_REMEMBERED of them. */
export const CALL_KEY_RETENTION_MS = 3600_000;
export const MAX_REMEMBERED = 5000;
/** Bounds that keep the workflow's state (and its continue-as-new input) well under a payload's 2 MB. */
export const MAX_ACTIVE_GRANTS = 500;

export const emptyGrants = (): GrantsState => ({ grants: [], used: {} });

export class GrantError extends Refusal {
  override name = 'GrantError';
  readonly failureType = Failure.GrantRefused;
}

export type GrantStatus = 'active' | 'expired' | 'exhausted' | 'revoked';

export function grantStatus(g: Grant, nowMs: number): GrantStatus {
  if (g.revokedAt) return 'revoked';
  if (g.uses !== undefined && g.used >= g.uses) return 'exhausted';
  return Date.parse(g.expiresAt) <= nowMs ? 'expired' : 'active';
}

// ── Changing the state ───────────────────────────────────────────────────────────────────────────────────────
export function activeGrants(s: GrantsState, nowMs: number): GrantView[] {
  return s.grants
    .filter((g) => grantStatus(g, nowMs) === 'active')
    .map((g) => ({
      id: g.id,
      agent: g.agent,
      tool: g.tool,
      where: g.where,
      grantedBy: g.grantedBy,
      grantedAt: g.grantedAt,
      expiresAt: g.expiresAt,
      usesLeft: g.uses === undefined ? null : g.uses - g.used,
      ...(g.signed ? { signedBy: g.signed.kid } : {}),
    }));
}

/** Why a grant cannot be added now (before it enters history), or undefined. */
export function checkAdd(s: GrantsState, id: string, nowMs: number): string | undefined {
  if (s.grants.some((g) => g.id === id)) return `grant id ${id} is taken`;
  if (activeGrants(s, nowMs).length >= MAX_ACTIVE_GRANTS)
    return `there are ${MAX_ACTIVE_GRANTS} active grants already: revoke some first`;
  return undefined;
}

/** What the grants workflow checked of a signed grant: the key that signed it, the token's id and its expiry (seconds). */
export interface GrantSignature {
  kid: string;
  jti: string;
  exp: number;
}

/** A signed token makes one grant: its id is remembered until the token expires. */
export const jtiUsed = (s: GrantsState, jti: string): boolean => Object.hasOwn(s.jtis ?? {}, jti);

/** A grant ends at its duration, a signed one at its token's expiry: never later than MAX_GRANT_MS from now. */
export function addGrant(
  s: GrantsState,
  req: AddGrantRequest,
  id: string,
  nowMs: number,
  signature?: GrantSignature,
): Grant {
  const problem = checkAdd(s, id, nowMs);
  if (problem) throw new GrantError(problem);
  const ends = Math.min(signature ? signature.exp * 1000 : nowMs + durationMs(req.for), nowMs + MAX_GRANT_MS);
  const grant: Grant = {
    id,
    agent: req.agent,
    tool: req.tool,
    where: req.where,
    grantedBy: signature ? signature.kid : req.grantedBy, // a signed grant's approver is its key's, as for decisions
    grantedAt: new Date(nowMs).toISOString(),
    expiresAt: new Date(ends).toISOString(),
    ...(req.uses !== undefined ? { uses: req.uses } : {}),
    used: 0,
    ...(signature && req.token ? { token: req.token, signed: { kid: signature.kid, jti: signature.jti } } : {}),
  };
  if (signature) s.jtis = { ...s.jtis, [signature.jti]: new Date(signature.exp * 1000).toISOString() };
  s.grants.push(grant);
  return grant;
}

export function checkRevoke(s: GrantsState, grantId: string, nowMs: number): string | undefined {
  const g = s.grants.find((x) => x.id === grantId);
  if (!g) return `unknown grant ${grantId} (see: countersign grants)`;
  const status = grantStatus(g, nowMs);
  return status === 'active' ? undefined : `grant ${grantId} is no longer active: ${status}`;
}

/** Revoked grants stop applying at once; a retried call that had used it asks again (and may find another grant). */
export function revokeGrant(s: GrantsState, req: RevokeGrantRequest, nowMs: number): Grant {
  const problem = checkRevoke(s, req.grantId, nowMs);
  if (problem) throw new GrantError(problem);
  const g = s.grants.find((x) => x.id === req.grantId)!;
  g.revokedAt = new Date(nowMs).toISOString();
  if (req.by) g.revokedBy = req.by;
  for (const [key, u] of Object.entries(s.used)) if (u.grantId === g.id) delete s.used[key];
  return g;
}

/** The first active grant that matches the call and whose grantor may approve it takes one use; null if none. */
export function useGrant(s: GrantsState, req: UseGrantRequest, nowMs: number): UseGrantResult {
  const known = s.used[req.callKey];
  const token = known && s.grants.find((x) => x.id === known.grantId)?.token;
  if (known) return { grantId: known.grantId, grantedBy: known.grantedBy, ...(token !== undefined ? { token } : {}) };
  const args = argumentsOf(req.arguments); // once for every grant it is matched against
  const g = s.grants.find(
    (x) =>
      x.agent === req.agent &&
      x.tool === req.tool &&
      grantStatus(x, nowMs) === 'active' &&
      (!req.signedOnly || x.token !== undefined) &&
      (!req.approvers || amongApprovers(req.approvers, x.grantedBy)) &&
      !(req.notBy !== undefined && sameApprover(req.notBy, x.grantedBy)) &&
      matchesWhere(x.where, args),
  );
  if (!g) return null;
  const at = new Date(nowMs).toISOString();
  g.used += 1;
  if (g.uses !== undefined && g.used >= g.uses) g.exhaustedAt = at;
  s.used[req.callKey] = { grantId: g.id, grantedBy: g.grantedBy, at };
  return { grantId: g.id, grantedBy: g.grantedBy, ...(g.token !== undefined ? { token: g.token } : {}) };
}

/** When a grant stopped applying, if it has. */
function endedAt(g: Grant, nowMs: number): number | undefined {
  const status = grantStatus(g, nowMs);
  if (status === 'active') return undefined;
  return Date.parse(
    status === 'revoked' ? g.revokedAt! : status === 'exhausted' ? (g.exhaustedAt ?? g.grantedAt) : g.expiresAt,
  );
}

/** Drops grants that ended more than GRANT_RETENTION_MS ago, and call keys past theirs (the oldest first beyond MAX_REMEMBERED). */
export function pruneGrants(s: GrantsState, nowMs: number): void {
  s.grants = s.grants.filter((g) => {
    const ended = endedAt(g, nowMs);
    return ended === undefined || nowMs - ended < GRANT_RETENTION_MS;
  });
  const keys = Object.entries(s.used);
  const excess = keys.length - MAX_REMEMBERED;
  keys.forEach(([key, u], i) => {
    if (i < excess || nowMs - Date.parse(u.at) >= CALL_KEY_RETENTION_MS) delete s.used[key];
  });
  if (s.jtis) s.jtis = Object.fromEntries(Object.entries(s.jtis).filter(([, exp]) => Date.parse(exp) > nowMs));
}

/**
 * A start input's grants held to the limits a request has: none ends later than MAX_GRANT_MS after it was granted,
 * nor after now (a crafted input may say anything), and no token id is remembered longer.
 */
export function capGrants(s: GrantsState, nowMs: number): GrantsState {
  const cap = (iso: string, from: number) =>
    new Date(Math.min(Date.parse(iso), from + MAX_GRANT_MS, nowMs + MAX_GRANT_MS)).toISOString();
  const grants = s.grants.map((g) => ({ ...g, expiresAt: cap(g.expiresAt, Date.parse(g.grantedAt)) }));
  const jtis = s.jtis && Object.fromEntries(Object.entries(s.jtis).map(([jti, exp]) => [jti, cap(exp, nowMs)]));
  return { grants, used: s.used, ...(jtis ? { jtis } : {}) };
}

/** What a continued-as-new workflow starts with: the active grants and the call keys still remembered. */
export function carryGrants(s: GrantsState, nowMs: number): GrantsState {
  const next: GrantsState = {
    grants: s.grants.filter((g) => grantStatus(g, nowMs) === 'active'),
    used: { ...s.used },
    ...(s.jtis ? { jtis: { ...s.jtis } } : {}),
  };
  pruneGrants(next, nowMs);
  return next;
}
