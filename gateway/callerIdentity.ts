// Who calls the gateway over HTTP, decided once for every path it serves (MCP, the hooks, the approvals API). With
// `auth` every request carries a bearer token naming its requester: a JWT (--requester-jwks and --requester-issuer),
// making the gateway an OAuth 2.1 protected resource as the MCP authorization spec (2025-11-25) has it: signed by
// the issuer for this resource (its audience), verified against the issuer's key set by the inbox's code
// (servers/inbox/jwtIdentity.ts), its subject the requester; or an engineer's own token (COUNTERSIGN_GATEWAY_TOKENS,
// `dan:<token>,…`, as `countersign serve`'s per approver), for a team without an authorization server. No token, or
// one refused, is a 401 whose WWW-Authenticate points at the protected-resource metadata (RFC 9728, with JWTs), which
// a client reads to find the authorization server. Without `auth` the gateway listens on loopback only and every
// caller is the local user.
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopback } from '../servers/httpGuards';
import { type JwtIdentity, jwtIdentity } from '../servers/inbox/jwtIdentity';
import { type IdentitySettings, tokenOwner } from '../servers/inbox/identity';
import { ConfigError } from '../temporal.config';

/** Per-engineer bearer tokens (COUNTERSIGN_GATEWAY_TOKENS), each standing for its engineer. */
export type EngineerTokens = IdentitySettings['tokens'];
export const GATEWAY_TOKENS = 'COUNTERSIGN_GATEWAY_TOKENS';

/** Bearer JWTs from an OAuth authorization server (e.g. your IdP), or engineers' own tokens, for the gateway's callers. */
export interface GatewayAuth {
  /** The issuer's public keys: a JWKS file or an https URL (--requester-jwks). */
  jwks?: string;
  /** The authorization server: the tokens' `iss`, and what the metadata names (--requester-issuer). */
  issuer?: string;
  /** The audience tokens must be for (--requester-audience; default the resource). */
  audience?: string;
  /** The claim naming the requester (--requester-claim; default sub). */
  claim?: string;
  /** The gateway's MCP URL as clients reach it (--resource; default the URL it listens at). */
  resource?: string;
  /** Engineers' own bearer tokens (COUNTERSIGN_GATEWAY_TOKENS), accepted beside JWTs or alone. */
  tokens?: EngineerTokens;
}

const configured = (auth: GatewayAuth | undefined): boolean => Boolean(auth?.jwks || auth?.tokens?.length);

export const WELL_KNOWN_RESOURCE = '/.well-known/oauth-protected-resource';
export const DEFAULT_REQUESTER_CLAIM = 'sub';

export type Caller = { principal: string } | { problem: string; challenge: string };

export interface CallerIdentity {
  /** The request's principal, or why not and the WWW-Authenticate header of its 401. */
  identify(headers: IncomingHttpHeaders): Promise<Caller>;
  /** The protected-resource metadata when `path` is where it is served (with auth only). */
  metadataAt(path: string): Record<string, unknown> | undefined;
  /** Hosts (host:port) clients reach the gateway by, besides where it listens: the resource's. */
  hosts: string[];
}

/** The settings as given, checked before anything starts: one line naming the option. */
export function checkAuth(auth: GatewayAuth | undefined, host: string): void {
  if (!auth || !configured(auth)) {
    if (auth?.resource !== undefined)
      throw new ConfigError(
        `--resource needs --requester-jwks <file or https URL> or ${GATEWAY_TOKENS}: the tokens that are checked for it`,
      );
    if (!isLoopback(host))
      throw new ConfigError(
        `--host ${host}: without --requester-jwks or ${GATEWAY_TOKENS} the gateway cannot tell its callers apart, so it listens on loopback only (127.0.0.1, ::1 or localhost): give --requester-jwks and --requester-issuer, or ${GATEWAY_TOKENS}=dan:<token>,…, or drop --host`,
      );
    return;
  }
  if (auth.jwks !== undefined && !auth.issuer?.trim())
    throw new ConfigError(
      '--requester-jwks needs --requester-issuer <url>: the authorization server that issues the tokens (their iss), named in the metadata clients read',
    );
  if (auth.resource !== undefined && !/^https?:\/\/[^/]+/.test(auth.resource))
    throw new ConfigError(
      `--resource ${auth.resource}: must be the gateway's MCP URL, e.g. https://gateway.example.com/mcp`,
    );
  if (!isLoopback(host) && !auth.resource)
    throw new ConfigError(
      `--host ${host} needs --resource <url>: the gateway's MCP URL as clients reach it, which their tokens are issued for`,
    );
  if (auth.jwks !== undefined) verifier(auth, auth.resource ?? 'http://127.0.0.1/mcp'); // an unreadable key set stops here
}

function verifier(auth: GatewayAuth, resource: string, maxLifetimeMs?: number): JwtIdentity {
  try {
    return jwtIdentity({
      header: 'Authorization',
      jwks: auth.jwks!,
      audience: auth.audience ?? resource,
      issuer: auth.issuer!,
      claim: auth.claim ?? DEFAULT_REQUESTER_CLAIM,
      ...(maxLifetimeMs ? { maxLifetimeMs } : {}),
      wording: {
        flag: '--requester',
        credential: 'the bearer token',
        server: 'this gateway',
        shorter: 'have your authorization server issue shorter-lived tokens',
      },
    });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** A quoted-string of an auth-param (RFC 9110), in printable ASCII: a header value may hold nothing else. */
const quoted = (text: string) => `"${text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')}"`;

/** Over HTTP, once the gateway listens at `listening` (its MCP URL). */
export function callerIdentity(
  auth: GatewayAuth | undefined,
  local: string,
  listening: string,
  maxLifetimeMs?: number,
): CallerIdentity {
  if (!auth || !configured(auth))
    return { identify: async () => ({ principal: local }), metadataAt: () => undefined, hosts: [] };
  const resource = new URL(auth.resource ?? listening);
  const tokens = auth.tokens ?? [];
  const jwt = auth.jwks !== undefined ? verifier(auth, resource.href, maxLifetimeMs) : undefined;
  const suffix = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  const metadataUrl = new URL(`${WELL_KNOWN_RESOURCE}${suffix}`, resource).href;
  // Only an authorization server is worth pointing clients at: with engineers' own tokens alone, no metadata.
  const metadata = jwt && {
    resource: resource.href,
    authorization_servers: [auth.issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'Countersign MCP gateway',
  };
  const paths = new Set([WELL_KNOWN_RESOURCE, `${WELL_KNOWN_RESOURCE}${suffix}`]);
  const challenge = (problem?: string) =>
    `Bearer ${metadata ? `resource_metadata=${quoted(metadataUrl)}` : 'realm="countersign-gateway"'}${problem ? `, error="invalid_token", error_description=${quoted(problem)}` : ''}`;
  const needed = [
    ...(jwt ? [`a bearer token from ${auth.issuer} for ${resource.href}`] : []),
    ...(tokens.length ? [`your engineer token (${GATEWAY_TOKENS})`] : []),
  ].join(' or ');
  return {
    hosts: [resource.host],
    metadataAt: (path) => (metadata && paths.has(path) ? metadata : undefined),
    async identify(headers) {
      const header = headers.authorization;
      const token = typeof header === 'string' ? /^Bearer +(\S+)\s*$/i.exec(header)?.[1] : undefined;
      if (!token) {
        const problem = `the gateway needs ${needed} (Authorization: Bearer <token>)`;
        return { problem, challenge: challenge() };
      }
      const engineer = tokenOwner(tokens, token);
      if (engineer) return { principal: engineer };
      if (!jwt) {
        const problem = `the bearer token was refused: it is none of the engineers' tokens this gateway accepts (${GATEWAY_TOKENS}); send your own`;
        return { problem, challenge: challenge(problem) };
      }
      const verdict = await jwt.verify(token);
      if ('problem' in verdict) return { problem: verdict.problem, challenge: challenge(verdict.problem) };
      return { principal: verdict.approver };
    },
  };
}
