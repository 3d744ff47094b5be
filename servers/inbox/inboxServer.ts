// `countersign serve`: the approvals inbox. Fastify with bounded bodies (413), a strict content security policy
// (helmet), CSRF tokens on every browser form (@fastify/csrf-protection), and an identity on every request from a
// trusted source (identity.ts): unauthenticated requests get 401 and change nothing. Routes: the pages
// (inboxRoutes.ts), the history of decided calls (historyRoutes.ts), the JSON API (apiRoutes.ts), one-click links
// (linkRoutes.ts) and, with a Slack signing secret, Slack's buttons (slackActions.ts: Slack's signature stands in
// for the identity there).
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { checkBind } from '../httpGuards';
import { type LogStream, newRequestId } from '../internalErrors';
import type { Runner } from '../../client/run/runner';
import { INBOX_CSS, RUN_JS } from './assets';
import { Decider } from './deciding';
import { type Identity, type IdentitySettings, identify } from './identity';
import { messagePage } from './pages';
import { replyToErrors } from './errorReplies';
import { scopeRunRoutes } from './runScope';
import { addApiRoutes } from './apiRoutes';
import { addHistoryRoutes } from './historyRoutes';
import { addInboxRoutes } from './inboxRoutes';
import { addReviewRoutes } from './reviewRoutes';
import { addLinkRoutes } from './linkRoutes';
import { SLACK_ACTIONS_PATH, type SlackOptions, addSlackRoutes, slackSettingsOf } from './slackActions';

export interface InboxOptions {
  /** Reads runs and sends decisions: only runs on its task queue (runScope.ts); another queue's run is answered as unknown. */
  runner: Runner;
  port?: number;
  host?: string;
  /** Header the reverse proxy sets to the signed-in approver (e.g. X-Forwarded-User). */
  approverHeader?: string;
  /** Bearer tokens and the approvers they stand for (COUNTERSIGN_SERVE_TOKENS). */
  tokens?: IdentitySettings['tokens'];
  /** Approvers' private keys (`<approver>.private.jwk`) the server signs their decisions with. */
  keysDir?: string;
  /** COUNTERSIGN_LINK_SECRET: one-click links minted by the workers are checked with it. */
  linkSecret?: string;
  /** Slack's interactive buttons at POST /slack/actions (COUNTERSIGN_SLACK_SIGNING_SECRET, COUNTERSIGN_SLACK_USERS). */
  slack?: SlackOptions;
  /** Largest request body (default 256 KiB): more gets 413. */
  bodyLimitBytes?: number;
  /** The reviews of audit-only calls the review queue reads and records into (default COUNTERSIGN_REVIEWS_WORKFLOW_ID). */
  reviewsWorkflowId?: string;
  /** Where internal errors are logged, one JSON line each with the request id the client was given (default stderr). */
  log?: LogStream;
}

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity;
  }
}

/** What every route needs. */
export interface InboxContext {
  runner: Runner;
  decider: Decider;
  linkSecret?: string;
  reviewsWorkflowId?: string;
  /** Browser forms carry a CSRF token; bearer-token requests (not ambient credentials) need none. */
  guardCsrf: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export async function startInbox(o: InboxOptions): Promise<{ url: string; close(): Promise<void> }> {
  const host = o.host ?? '127.0.0.1';
  const identity: IdentitySettings = { approverHeader: o.approverHeader?.toLowerCase(), tokens: o.tokens ?? [] };
  checkBind(host, Boolean(identity.approverHeader || identity.tokens.length), 'countersign serve');
  const slack = slackSettingsOf(o.slack, o.linkSecret);
  if (!identity.approverHeader && !identity.tokens.length) throw new Error('countersign serve needs an identity source: --approver-header (set by your reverse proxy) or COUNTERSIGN_SERVE_TOKENS=ann:<token>,…');

  // Link tokens travel in the path (up to 2 KB).
  // Fastify's request ids name internal errors to the client; their details go to the log under that id (errorReplies.ts).
  const app = Fastify({ bodyLimit: o.bodyLimitBytes ?? 256 * 1024, genReqId: newRequestId, logger: { level: 'error', stream: o.log ?? process.stderr }, routerOptions: { maxParamLength: 2048 } });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], connectSrc: ["'self'"], formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"], objectSrc: ["'none'"] },
    },
  });
  await app.register(cookie, { secret: randomBytes(32).toString('hex') });
  await app.register(csrf, { sessionPlugin: '@fastify/cookie', cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', path: '/' } });
  await app.register(formbody, { bodyLimit: o.bodyLimitBytes ?? 256 * 1024 });

  app.decorateRequest('identity', null as unknown as Identity);
  app.addHook('onRequest', async (req, reply) => {
    if (req.url.startsWith('/assets/') || (slack && req.routeOptions.url === SLACK_ACTIONS_PATH)) return;
    const who = identify(req.headers, identity);
    if (!who) {
      reply.code(401).header('www-authenticate', 'Bearer');
      return req.url.startsWith('/api/') ? reply.send({ error: 'not signed in: send Authorization: Bearer <token> (or come through the proxy that sets the approver header)' }) : reply.type('text/html').send(messagePage('Not signed in', 'Sign in through your organisation’s proxy, or use a bearer token.'));
    }
    req.identity = who;
  });
  replyToErrors(app);

  const runner = o.runner;
  const ctx: InboxContext = {
    runner,
    decider: new Decider(runner, o.keysDir),
    ...(o.linkSecret ? { linkSecret: o.linkSecret } : {}),
    ...(o.reviewsWorkflowId ? { reviewsWorkflowId: o.reviewsWorkflowId } : {}),
    guardCsrf: (req, reply) =>
      req.identity.via === 'token' ? Promise.resolve() : new Promise<void>((resolve, reject) => app.csrfProtection(req, reply, (err?: Error) => (err ? reject(err) : resolve()))),
  };
  app.get('/assets/inbox.css', (_req, reply) => reply.type('text/css').header('cache-control', 'no-cache').send(INBOX_CSS));
  app.get('/assets/run.js', (_req, reply) => reply.type('text/javascript').header('cache-control', 'no-cache').send(RUN_JS));
  scopeRunRoutes(app, runner);
  addInboxRoutes(app, ctx);
  addReviewRoutes(app, ctx);
  addHistoryRoutes(app, ctx);
  addApiRoutes(app, ctx);
  addLinkRoutes(app, ctx);
  if (slack) await addSlackRoutes(app, ctx, slack, o.bodyLimitBytes ?? 256 * 1024);

  const address = await app.listen({ port: o.port ?? 8234, host });
  return { url: address.replace('[::1]', 'localhost'), close: () => app.close() };
}
