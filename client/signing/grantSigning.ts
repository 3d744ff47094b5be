// The approver's side of signed grants: their private key vouches for one grant (agent, tool, constraints, duration,
// uses), by a token the grants workflow checks against the worker's approver keys. A grant of a tool that needs
// signed decisions or a quorum is refused without one: a grant stands in for those decisions.
import { randomUUID } from 'node:crypto';
import { durationMs } from '../../contract/approvalPolicy';
import type { GrantClaims } from '../../core/signing/grantToken';
import { type ApproverPrivateKey, compactJws, readPrivateKey } from './decisionSigning';

/** What a grant token signs: the grant as it is sent (its `grantedBy` is the key's approver). */
export interface GrantToSign {
  agent: string;
  tool: string;
  where: Record<string, unknown>;
  for: string;
  uses?: number;
}

/** A compact JWS by `key` (a private JWK, or its file) over exactly this grant; it expires when the grant does. */
export function signGrant(
  key: ApproverPrivateKey | string,
  grant: GrantToSign,
  options: { now?: number; jti?: string } = {},
): string {
  const jwk = typeof key === 'string' ? readPrivateKey(key) : key;
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  const claims: GrantClaims = {
    kind: 'grant',
    sub: jwk.kid,
    agent: grant.agent,
    tool: grant.tool,
    where: grant.where,
    for: grant.for,
    ...(grant.uses !== undefined ? { uses: grant.uses } : {}),
    iat,
    exp: iat + Math.floor(durationMs(grant.for) / 1000),
    jti: options.jti ?? randomUUID(),
  };
  return compactJws(jwk, claims);
}
