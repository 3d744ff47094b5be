// Which identity sources an inbox may trust where it listens, decided once at start (each refusal one line saying
// what to set). A bare header is anyone's to send, so it is trusted only on loopback (a proxy on this host) and
// never where the server signs with approvers' keys; the sign-in link is for this machine only; beyond loopback
// only verified identities (bearer tokens, a verifying proxy's signed assertion) are accepted. The approvers named
// here (tokens, Slack, keys, the signed-in user) are the names every other one is checked against: none may pass for
// another's, and a proxy's name that could pass for one of theirs is refused.
import { readdirSync } from 'node:fs';
import { namesProblem } from '../../contract/approverName';
import { checkBind, isLoopback } from '../httpGuards';
import { type IdentitySettings, hasVerifiedSource } from './identity';
import { type JwtIdentityOptions, jwtIdentity } from './jwtIdentity';
import { LocalSignIn, type LocalSignInOptions } from './localSignIn';

export interface IdentitySources {
  approverHeader?: string;
  tokens?: IdentitySettings['tokens'];
  approverJwt?: JwtIdentityOptions;
  localSignIn?: LocalSignInOptions;
  keysDir?: string;
  /** The approvers of the Slack mapping (COUNTERSIGN_SLACK_USERS). */
  slackApprovers?: Iterable<string>;
  /** COUNTERSIGN_MIXED_SCRIPT_NAMES=true: names may mix scripts. */
  mixedScriptNames?: boolean;
}

const KEY_FILE = '.private.jwk';
/** The approvers `--keys-dir` holds keys for (none when it cannot be read: then no key is found for anyone either). */
function keyHolders(dir: string | undefined): string[] {
  try {
    return dir ? readdirSync(dir).flatMap((f) => (f.endsWith(KEY_FILE) ? [f.slice(0, -KEY_FILE.length)] : [])) : [];
  } catch {
    return [];
  }
}

const VERIFIED = 'COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks';

export function identitySettingsFor(host: string, o: IdentitySources): IdentitySettings {
  if (o.localSignIn && !isLoopback(host))
    throw new Error(
      `countersign serve offers the one-time sign-in link on loopback only, not on ${host}: bind to 127.0.0.1`,
    );
  if (o.approverHeader && !isLoopback(host))
    throw new Error(
      `countersign serve trusts --approver-header only on loopback (a proxy on this host), not on ${host} where any client could send it: set ${VERIFIED}`,
    );
  const known = [
    ...(o.tokens ?? []).map((t) => t.approver),
    ...(o.slackApprovers ?? []),
    ...keyHolders(o.keysDir),
    ...(o.localSignIn ? [o.localSignIn.approver] : []),
  ];
  const names = { known, mixedScripts: o.mixedScriptNames ?? false };
  const clash = namesProblem(known, { mixedScripts: names.mixedScripts });
  if (clash) throw new Error(`countersign serve: the approvers of its tokens, Slack mapping and --keys-dir: ${clash}`);
  const s: IdentitySettings = {
    ...(o.approverHeader ? { approverHeader: o.approverHeader.toLowerCase() } : {}),
    tokens: o.tokens ?? [],
    names,
    ...(o.approverJwt ? { jwt: jwtIdentity({ ...o.approverJwt, names }) } : {}),
    ...(o.localSignIn ? { signIn: new LocalSignIn(o.localSignIn.approver, o.localSignIn.ttlMs, o.localSignIn) } : {}),
  };
  checkBind(host, hasVerifiedSource(s), 'countersign serve', `set ${VERIFIED}, or bind to 127.0.0.1`);
  if (o.keysDir && (s.approverHeader || !hasVerifiedSource(s)))
    throw new Error(
      `countersign serve --keys-dir signs decisions with approvers' keys, so it needs an identity that cannot be spoofed: set ${VERIFIED}, and no --approver-header`,
    );
  if (!s.approverHeader && !hasVerifiedSource(s))
    throw new Error(
      `countersign serve needs an identity source: ${VERIFIED} (a verifying proxy), or --approver-header (a proxy on this host)`,
    );
  return s;
}

/** What a request with no identity should do, for its 401: the ways in this server takes (`header` as configured). */
export function signInHint(s: IdentitySettings, header?: string): string {
  if (s.signIn) return `open the one-time sign-in link ${s.signIn.printedBy} printed (start it again for a new one)`;
  const ways = [
    ...(header ? [`send ${header}, as the proxy on this host does`] : []),
    ...(s.tokens.length ? ['send Authorization: Bearer <token>'] : []),
    ...(s.jwt ? ['come through the proxy that signs you in'] : []),
  ];
  return ways.length
    ? ways.join(', or ')
    : 'send Authorization: Bearer <token>, or come through the proxy that signs you in';
}
