// Who is deciding, from a source the server trusts, never from a form field: a header the user's reverse proxy
// sets after its own login (`--approver-header X-Forwarded-User`), or a bearer token mapped to an approver
// (COUNTERSIGN_SERVE_TOKENS=ann:<token>,bob:<token>). Anything else is unauthenticated.
import type { IncomingHttpHeaders } from 'node:http';
import { sameSecret } from '../../links/sameSecret';

export interface IdentitySettings {
  /** Lower-case header name set by the reverse proxy, e.g. x-forwarded-user. */
  approverHeader?: string;
  tokens: Array<{ approver: string; token: string }>;
}

export interface Identity {
  approver: string;
  /** `token`: a bearer token (scripts; not ambient, so no CSRF check); `header`: the proxy's (browsers). */
  via: 'header' | 'token';
}

export const APPROVER_NAME = /^[\w.@-]{1,200}$/;

/** `ann:tok1,bob:tok2` → entries; one line naming what is wrong. */
export function parseServeTokens(spec: string | undefined): IdentitySettings['tokens'] {
  if (!spec) return [];
  return spec.split(',').map((entry) => {
    const at = entry.indexOf(':');
    const approver = entry.slice(0, at).trim();
    const token = entry.slice(at + 1).trim();
    if (at < 1 || !APPROVER_NAME.test(approver)) throw new Error(`COUNTERSIGN_SERVE_TOKENS: "${entry.slice(0, 40)}" must be approver:token, e.g. ann:$(openssl rand -hex 24)`);
    if (token.length < 16) throw new Error(`COUNTERSIGN_SERVE_TOKENS: the token of ${approver} is shorter than 16 characters`);
    return { approver, token };
  });
}

export function identify(headers: IncomingHttpHeaders, s: IdentitySettings): Identity | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
    const given = auth.slice('Bearer '.length).trim();
    // Every entry is compared (constant time each), so timing says nothing about which one matched.
    let found: string | undefined;
    for (const t of s.tokens) if (sameSecret(given, t.token)) found ??= t.approver;
    return found ? { approver: found, via: 'token' } : undefined;
  }
  if (!s.approverHeader) return undefined;
  const value = headers[s.approverHeader];
  const name = Array.isArray(value) ? undefined : value?.trim();
  return name && APPROVER_NAME.test(name) ? { approver: name, via: 'header' } : undefined;
}
