// Who is deciding, from a source the server trusts, never from a form field. Verified sources: a bearer token mapped
// to an approver (COUNTERSIGN_SERVE_TOKENS=ann:<token>,bob:<token>), a verifying proxy's signed assertion
// (--approver-jwt-header with --approver-jwks, jwtIdentity.ts), or the session `npm start`'s one-time link minted
// (localSignIn.ts, loopback only). Unverified: a bare header a proxy on this host sets (`--approver-header
// X-Forwarded-User`), trusted on loopback only and never with server-held keys (startInbox refuses both).
// Anything else is unauthenticated.
import type { IncomingHttpHeaders } from 'node:http';
import { type NamesKnown, approverNameProblem } from '../../contract/approverName';
import { sameSecret } from '../../links/sameSecret';
import type { JwtIdentity } from './jwtIdentity';
import type { LocalSignIn } from './localSignIn';

export interface IdentitySettings {
  /** Lower-case header name set by the reverse proxy, e.g. x-forwarded-user. */
  approverHeader?: string;
  tokens: Array<{ approver: string; token: string }>;
  jwt?: JwtIdentity;
  signIn?: LocalSignIn;
  /** The approvers this inbox knows (tokens, Slack, keys, the signed-in user), and whether names may mix scripts. */
  names?: NamesKnown;
}

export interface Identity {
  approver: string;
  /**
   * `token`: a bearer token (scripts; not ambient, so no CSRF check); `jwt`: a verifying proxy's assertion;
   * `session`: npm start's sign-in link; `header`: a same-host proxy's bare header (browsers, with CSRF checks).
   */
  via: 'header' | 'token' | 'jwt' | 'session';
}

/**
 * A name from a serve token, the Slack mapping, a proxy's header or assertion, under the rule every other intake uses
 * (contract/approverName.ts), so no channel accepts a name another refuses: the name in NFC without surrounding
 * space, or why it is none. An entry: checked against the approvers `names` knows, and for mixed scripts.
 */
export function checkedApprover(name: string, names: NamesKnown = {}): { approver: string } | { problem: string } {
  const problem = approverNameProblem(name, names);
  return problem ? { problem } : { approver: name.normalize('NFC').trim() };
}

/** Whose token `given` is, among `ann:tok1,bob:tok2`'s entries (serve's approvers', the gateway's engineers'). */
export function tokenOwner(tokens: IdentitySettings['tokens'], given: string): string | undefined {
  // Every entry is compared (constant time each), so timing says nothing about which one matched.
  let found: string | undefined;
  for (const t of tokens) if (sameSecret(given, t.token)) found ??= t.approver;
  return found;
}

/**
 * `ann:tok1,bob:tok2` → entries; one line naming what is wrong (a name passing for an earlier one's too). The gateway's
 * per-engineer tokens (COUNTERSIGN_GATEWAY_TOKENS) are read the same way, named as their `setting`.
 */
export function parseServeTokens(
  spec: string | undefined,
  names: Pick<NamesKnown, 'mixedScripts'> = {},
  setting = 'COUNTERSIGN_SERVE_TOKENS',
  who = 'approver',
): IdentitySettings['tokens'] {
  if (!spec) return [];
  const known: string[] = [];
  return spec.split(',').map((entry) => {
    const at = entry.indexOf(':');
    const token = entry.slice(at + 1).trim();
    if (at < 1 || !entry.slice(0, at).trim())
      throw new Error(`${setting}: "${entry.slice(0, 40)}" must be ${who}:token, e.g. ann:$(openssl rand -hex 24)`);
    const name = checkedApprover(entry.slice(0, at), { ...names, known });
    if ('problem' in name) throw new Error(`${setting}: ${name.problem}`);
    known.push(name.approver);
    if (token.length < 16) throw new Error(`${setting}: the token of ${name.approver} is shorter than 16 characters`);
    return { approver: name.approver, token };
  });
}

/** Whether any source the server can verify is configured (a bare header is not one). */
export const hasVerifiedSource = (s: IdentitySettings): boolean => s.tokens.length > 0 || Boolean(s.jwt || s.signIn);

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? undefined : value?.trim() || undefined;

/**
 * The request's identity, a problem to tell the caller (a presented credential that failed), or undefined (none
 * presented). A presented bearer token or assertion that fails is final: no weaker source is tried after it.
 */
export async function identify(
  headers: IncomingHttpHeaders,
  session: string | undefined,
  s: IdentitySettings,
): Promise<Identity | { problem: string } | undefined> {
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
    const found = tokenOwner(s.tokens, auth.slice('Bearer '.length).trim());
    return found ? { approver: found, via: 'token' } : undefined;
  }
  const assertion = s.jwt && single(headers[s.jwt.header]);
  if (s.jwt && assertion) {
    const verdict = await s.jwt.verify(assertion);
    return 'approver' in verdict ? { approver: verdict.approver, via: 'jwt' } : verdict;
  }
  const signedIn = s.signIn?.approverOf(session);
  if (signedIn) return { approver: signedIn, via: 'session' };
  if (!s.approverHeader) return undefined;
  const name = single(headers[s.approverHeader]);
  if (!name) return undefined;
  const checked = checkedApprover(name, s.names);
  return 'problem' in checked ? { problem: `${s.approverHeader}: ${checked.problem}` } : { ...checked, via: 'header' };
}
