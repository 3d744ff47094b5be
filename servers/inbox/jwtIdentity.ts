// Signed identity assertions from a verifying proxy (Google IAP's x-goog-iap-jwt-assertion, Cloudflare Access's
// Cf-Access-Jwt-Assertion, Pomerium, oauth2-proxy): a JWT on every request, verified with jose against the proxy's
// key set. Only ES256, RS256 and EdDSA are accepted (so `alg: none` and shared-secret HS* tokens never are); the
// token must carry an expiry no further from its issue than the maximum lifetime, and its audience and issuer must be
// the configured ones when those are set. An audience must be set (or any audience accepted in so many words): the
// same identity provider signs tokens for every app behind it, and one minted for another app must not sign in here.
import { readFileSync } from 'node:fs';
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import type { NamesKnown } from '../../contract/approverName';
import { checkedApprover } from './identity';

export const JWT_ALGORITHMS = ['ES256', 'RS256', 'EdDSA'];

export interface JwtIdentityOptions {
  /** The header the proxy puts its assertion in, e.g. Cf-Access-Jwt-Assertion. */
  header: string;
  /** The proxy's public key set: a JWKS file, or an https URL it is fetched (and refreshed) from. */
  jwks: string;
  /** The claim naming the approver (default: email). */
  claim?: string;
  /** The audience the assertion must be for (IAP: /projects/…/backendServices/…; Cloudflare Access: the app's AUD tag). */
  audience?: string;
  /** The issuer the assertion must come from (IAP: https://cloud.google.com/iap; Cloudflare: https://<team>.cloudflareaccess.com). */
  issuer?: string;
  /** `--approver-audience-any`: accept an assertion for any audience (without it, `audience` is required). */
  audienceAny?: boolean;
  /** The longest lifetime (exp − iat, or exp − now without iat) accepted (COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME; default 1 hour). */
  maxLifetimeMs?: number;
  /** The approvers known to the inbox: a name that could pass for one of theirs is refused (contract/approverName.ts). */
  names?: NamesKnown;
  /** How refusals name things, for a server other than the inbox (the MCP gateway's bearer tokens). */
  wording?: Wording;
}

export interface Wording {
  /** The options' prefix: `--approver` (…-jwks, …-audience). */
  flag: string;
  /** What a refusal says was refused: `the identity assertion in <header>`. */
  credential: string;
  /** Who accepts it: `this inbox`. */
  server: string;
  /** What to do about one living too long: `have your proxy issue shorter-lived assertions`. */
  shorter: string;
}

export const DEFAULT_JWT_MAX_LIFETIME_MS = 3600_000;
const CLOCK_TOLERANCE_S = 30; // the proxy's clock and ours

/** 90 s, 45 min, 24 h: a lifetime in words. */
const span = (seconds: number): string =>
  seconds < 120
    ? `${seconds} s`
    : seconds < 7200
      ? `${Math.round(seconds / 60)} min`
      : `${Math.round(seconds / 3600)} h`;

export type JwtVerdict = { approver: string } | { problem: string };

export interface JwtIdentity {
  /** Lower-case header name. */
  header: string;
  verify(token: string): Promise<JwtVerdict>;
}

type Jose = typeof import('jose');
// jose ships ES modules only. Node 22.12+ (and jest, which transforms it) load it with require(); an earlier Node 22
// needs a real import() (written so that tsc leaves it one). Loaded only where assertions are configured.
const realImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Jose>;
let jose: Promise<Jose> | undefined;
function loadJose(): Promise<Jose> {
  return (jose ??= (async () => {
    try {
      return require('jose') as Jose;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw err;
      return realImport('jose');
    }
  })());
}

/** The key set behind `source`, checked now: an https URL (fetched by jose, cached, refreshed on an unknown kid) or a JWKS file. */
export function keySetOf(source: string, flag = '--approver-jwks'): () => Promise<JWTVerifyGetKey> {
  if (/^https:\/\//i.test(source)) return async () => (await loadJose()).createRemoteJWKSet(new URL(source));
  if (/^[a-z][\w+.-]*:\/\//i.test(source)) throw new Error(`${flag} ${source}: give a JWKS file or an https URL`);
  let set: JSONWebKeySet;
  try {
    set = JSON.parse(readFileSync(source, 'utf8')) as JSONWebKeySet;
  } catch (err) {
    throw new Error(
      `${flag} ${source}: cannot read a key set (${(err as Error).message.split('\n')[0]}): give a JWKS file or an https URL`,
    );
  }
  if (!set || !Array.isArray(set.keys) || !set.keys.length)
    throw new Error(`${flag} ${source}: the file holds no keys (a JWKS is {"keys": [...]})`);
  return async () => (await loadJose()).createLocalJWKSet(set);
}

/** Why jose refused a token, in words (its error codes are stable: jose's errors module). */
function refusal(err: unknown): string {
  const e = err as { code?: string; claim?: string; reason?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED':
      return 'it has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.reason === 'missing') return `it has no "${e.claim}" claim`;
      if (e.claim === 'aud') return 'it is for another audience';
      if (e.claim === 'iss') return 'it comes from another issuer';
      if (e.claim === 'nbf') return 'it is not valid yet';
      return `its "${e.claim}" claim is invalid`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `its algorithm is not one of ${JWT_ALGORITHMS.join(', ')}`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'it is signed by a key the key set does not hold';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'its signature does not verify';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'it is not a well-formed signed JWT';
    default:
      return 'it could not be verified';
  }
}

/** A verifier for one proxy's assertions; a bad key set or a missing option is one line, at start. */
export function jwtIdentity(o: JwtIdentityOptions): JwtIdentity {
  if (!o.header?.trim())
    throw new Error(
      '--approver-jwt-header: name the header your proxy puts its signed assertion in, e.g. Cf-Access-Jwt-Assertion',
    );
  if (!o.jwks?.trim())
    throw new Error(
      `--approver-jwt-header ${o.header} needs --approver-jwks <file or https URL>: the proxy's public keys`,
    );
  const maxLifetime = Math.floor((o.maxLifetimeMs ?? DEFAULT_JWT_MAX_LIFETIME_MS) / 1000);
  const words = o.wording ?? {
    flag: '--approver',
    credential: `the identity assertion in ${o.header}`,
    server: 'this inbox',
    shorter: 'have your proxy issue shorter-lived assertions',
  };
  const keySet = keySetOf(o.jwks, `${words.flag}-jwks`);
  if (!o.audience?.trim() && !o.audienceAny)
    throw new Error(
      `--approver-jwks needs --approver-audience <aud>: your identity provider signs tokens for every app behind it, and without an audience one issued for another app would sign in here (Cloudflare Access: the app's AUD tag; IAP: /projects/…/backendServices/…); or give --approver-audience-any to accept any`,
    );
  let keys: Promise<JWTVerifyGetKey> | undefined; // one key set (and its cache of fetched keys) for every request
  const claim = o.claim ?? 'email';
  const header = o.header.trim().toLowerCase();
  const refused = (why: string) => ({ problem: `${words.credential} was refused: ${why}` });
  return {
    header,
    async verify(token) {
      let payload: Record<string, unknown>;
      try {
        const { jwtVerify } = await loadJose();
        ({ payload } = await jwtVerify(token, await (keys ??= keySet()), {
          algorithms: JWT_ALGORITHMS,
          requiredClaims: ['exp'],
          clockTolerance: CLOCK_TOLERANCE_S,
          ...(o.audience ? { audience: o.audience } : {}),
          ...(o.issuer ? { issuer: o.issuer } : {}),
        }));
      } catch (err) {
        return refused(refusal(err));
      }
      // From its issue, or from now: an iat set in the future does not stretch what the token may live.
      const now = Math.floor(Date.now() / 1000);
      const lifetime = (payload.exp as number) - Math.min(typeof payload.iat === 'number' ? payload.iat : now, now);
      if (lifetime > maxLifetime + CLOCK_TOLERANCE_S)
        return refused(
          `it lives ${span(lifetime)}, longer than the ${span(maxLifetime)} ${words.server} accepts (COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME): ${words.shorter}`,
        );
      const name = payload[claim];
      if (typeof name !== 'string') return refused(`it has no "${claim}" claim naming the approver`);
      const checked = checkedApprover(name, o.names);
      return 'problem' in checked ? refused(`its "${claim}" claim: ${checked.problem}`) : checked;
    },
  };
}
