// Where the gateway's MCP server is reached: Streamable HTTP (one server and transport per client session, sessions
// by the Mcp-Session-Id header; a body over MAX_BODY_BYTES or not JSON is refused before it reaches a session), or
// stdio (one session; the MCP messages own stdout, so every log goes to stderr).
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../temporal.config';
import { oneLine } from '../agents/agentsFileErrors';
import { type GatewayCore, gatewayServer } from './gatewayServer';
import { answerPreToolUse } from './hookCalls';
import {
  APPROVAL_REQUESTS_PATH,
  MAX_POLL_SECONDS,
  createApprovalRequest,
  isRequestId,
  pollSeconds,
  statusOf,
} from './approvalRequests';
import { APPROVALS_OPENAPI, OPENAPI_PATH } from './approvalsOpenApi';
import type { Caller, CallerIdentity } from './callerIdentity';
import { recordRequestOutcome } from './callOutcomes';

const OUTCOME_SUFFIX = '/outcome';

export const MCP_PATH = '/mcp';
export const CLAUDE_CODE_HOOK_PATH = '/hooks/claude-code';
/** The largest request body the gateway reads (a tools/call's arguments included). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function serveStdio(core: GatewayCore, principal: string): Promise<() => Promise<void>> {
  const server = gatewayServer(core, principal);
  await server.connect(new StdioServerTransport());
  return () => server.close();
}

function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** A plain HTTP answer (hooks, the approvals API): a refusal is `{ "error": "<one line>" }`. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
const plainRefusal = (res: ServerResponse, status: number, _code: number, message: string) =>
  reply(res, status, { error: message });

/** A hook's or the API's JSON body; undefined (the response already sent) when not sent as JSON, too large or not JSON. */
async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  // JSON only: a web page elsewhere cannot send it without a preflight the gateway never answers.
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
    reply(res, 415, { error: 'the body must be JSON, sent with content-type: application/json' });
    return undefined;
  }
  return bodyOf(req, res, plainRefusal);
}

/** Everything but MCP: the Claude Code hook, the approvals API and its OpenAPI document. */
async function servePlain(
  core: GatewayCore,
  principal: string,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (path === CLAUDE_CODE_HOOK_PATH) {
    if (req.method !== 'POST') return reply(res, 405, { error: `POST a PreToolUse hook input to ${path}` });
    const body = await jsonBody(req, res);
    if (body === undefined) return;
    const answered = await answerPreToolUse(core, principal, body);
    return reply(res, answered.status, answered.body);
  }
  if (path === APPROVAL_REQUESTS_PATH || path.startsWith(`${APPROVAL_REQUESTS_PATH}/`))
    return approvalsApi(core, principal, req, res, path);
  reply(res, 404, {
    error: `nothing at ${path}: the gateway serves ${MCP_PATH}, ${CLAUDE_CODE_HOOK_PATH}, ${APPROVAL_REQUESTS_PATH}`,
  });
}

async function approvalsApi(
  core: GatewayCore,
  principal: string,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  let answer: { status: number; body: unknown };
  if (path === APPROVAL_REQUESTS_PATH) {
    if (req.method !== 'POST') return reply(res, 405, { error: `POST { tool, arguments } to ${path}` });
    const body = await jsonBody(req, res);
    if (body === undefined) return;
    const key = req.headers['idempotency-key'];
    answer = await createApprovalRequest(core, principal, typeof key === 'string' ? key : undefined, body);
  } else if (path.endsWith(OUTCOME_SUFFIX)) {
    const id = path.slice(APPROVAL_REQUESTS_PATH.length + 1, -OUTCOME_SUFFIX.length);
    if (req.method !== 'POST') return reply(res, 405, { error: `POST { exitCode?, error?, text? } to ${path}` });
    const body = await jsonBody(req, res);
    if (body === undefined) return;
    answer = await recordRequestOutcome(core, principal, id, (i) => isRequestId(core, i), body);
  } else {
    const id = path.slice(APPROVAL_REQUESTS_PATH.length + 1);
    const wait = pollSeconds(new URL(req.url ?? '/', 'http://gateway').searchParams.get('wait'));
    if (req.method !== 'GET' || !/^[\w.-]+$/.test(id))
      answer = { status: 404, body: { error: `GET ${APPROVAL_REQUESTS_PATH}/<id> for a request's status` } };
    else if (wait === undefined)
      answer = { status: 400, body: { error: `wait: must be whole seconds from 0 to ${MAX_POLL_SECONDS}` } };
    else answer = await statusOf(core, principal, id, wait);
  }
  reply(res, answer.status, answer.body);
}

/** The body as JSON; undefined (the response already sent) when too large or not JSON. */
async function bodyOf(req: IncomingMessage, res: ServerResponse, no = refuse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      no(res, 413, ErrorCode.InvalidRequest, `request too large: over ${MAX_BODY_BYTES / 1024 / 1024} MB`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    no(res, 400, ErrorCode.ParseError, 'Parse error: the request body is not JSON');
    return undefined;
  }
}

/** A 401 for a request without a principal: nothing is read or booked. */
function unauthorized(res: ServerResponse, caller: Exclude<Caller, { principal: string }>, mcp: boolean): void {
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': caller.challenge });
  res.end(
    JSON.stringify(
      mcp
        ? { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: caller.problem } }
        : { error: caller.problem },
    ),
  );
}

/**
 * Streamable HTTP at `host:port`. `identityAt` gives who calls, once the URL is known (the default resource the
 * tokens are for): every request but the protected-resource metadata is answered for its principal or refused 401.
 */
export async function listenHttp(
  core: GatewayCore,
  identityAt: (url: string) => CallerIdentity,
  host: string,
  port: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  // A session is its principal's: a request of another, with its id, is refused.
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; principal: string }>();
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];
  const who: { identity?: CallerIdentity } = {}; // set once listening, before any request
  const http = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://gateway').pathname;
      const metadata = who.identity!.metadataAt(path);
      if (metadata) {
        // Public, and read by browser-based clients too: any origin may fetch it (it carries no credentials).
        res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
        return void res.end(JSON.stringify(metadata));
      }
      if (path !== MCP_PATH) {
        // As for MCP sessions: a web page elsewhere (DNS rebinding, a cross-site form) gets nothing.
        const { host: asked, origin } = req.headers;
        if (!allowedHosts.includes(asked ?? '') || (origin !== undefined && !allowedOrigins.includes(origin)))
          return reply(res, 403, {
            error: `the gateway answers only at ${allowedOrigins[0]} (not ${origin ?? asked})`,
          });
        if (path === OPENAPI_PATH) return reply(res, 200, APPROVALS_OPENAPI);
      }
      const caller = await who.identity!.identify(req.headers);
      if (!('principal' in caller)) return unauthorized(res, caller, path === MCP_PATH);
      const { principal } = caller;
      if (path !== MCP_PATH) return await servePlain(core, principal, req, res, path);
      const id = req.headers['mcp-session-id'];
      const session = typeof id === 'string' ? sessions.get(id) : undefined;
      if (session && session.principal !== principal)
        return refuse(
          res,
          403,
          ErrorCode.InvalidRequest,
          `Forbidden: this session is another principal's; initialize your own`,
        );
      const known = session?.transport;
      if (req.method !== 'POST') {
        if (known) await known.handleRequest(req, res);
        else refuse(res, 400, ErrorCode.InvalidRequest, 'Bad Request: no valid Mcp-Session-Id; initialize first');
        return;
      }
      const body = await bodyOf(req, res);
      if (body === undefined) return;
      if (known) return known.handleRequest(req, res, body);
      if (id !== undefined || !isInitializeRequest(body)) {
        refuse(res, 400, ErrorCode.InvalidRequest, 'Bad Request: no valid Mcp-Session-Id; initialize first');
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, { transport, principal }),
        onsessionclosed: (sid) => void sessions.delete(sid),
        // A web page elsewhere may not drive the gateway through the user's browser: only its own host and origin.
        enableDnsRebindingProtection: true,
        allowedHosts,
        allowedOrigins,
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await gatewayServer(core, principal).connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (res.headersSent) return;
      const mcp = new URL(req.url ?? '/', 'http://gateway').pathname === MCP_PATH;
      if (mcp) refuse(res, 500, ErrorCode.InternalError, (err as Error).message);
      else reply(res, 500, { error: oneLine((err as Error).message) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  }).catch((err: NodeJS.ErrnoException) => {
    throw new ConfigError(
      err.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use: choose another with --port` : err.message,
    );
  });
  const bound = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound}${MCP_PATH}`;
  const identity = (who.identity = identityAt(url));
  // Where clients reach it: where it listens, and (behind a proxy) the resource's host, over http or https.
  allowedHosts = [`${shown}:${bound}`, `localhost:${bound}`, `127.0.0.1:${bound}`, ...identity.hosts];
  allowedOrigins = allowedHosts.flatMap((h) => [`http://${h}`, `https://${h}`]);
  return {
    url,
    close: async () => {
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
    },
  };
}
