// `countersign serve`: the approvals inbox. Fastify with bounded bodies (413), a strict content security policy
// (helmet), CSRF tokens on every browser form bound to the signed-in approver (@fastify/csrf-protection), and an
// identity on every request from a trusted source (identity.ts, inboxIdentity.ts): unauthenticated requests get 401
// and change nothing. Routes: the pages
// (inboxRoutes.ts), the history of decided calls (historyRoutes.ts), the JSON API (apiRoutes.ts), one-click links
// (linkRoutes.ts) and, with a Slack signing secret, Slack's buttons (slackActions.ts: Slack's signature stands in
// for the identity there).
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { type LogStream, newRequestId } from '../internalErrors';
import type { Runner } from '../../client/run/runner';
import { INBOX_CSS, RUN_JS } from './assets';
import { Decider } from './deciding';
import { type Identity, identify } from './identity';
import { identitySettingsFor, signInHint } from './inboxIdentity';
import type { JwtIdentityOptions } from './jwtIdentity';
import { type LocalSignInOptions, SESSION_COOKIE, SIGN_IN_PATH, addSignInRoute } from './localSignIn';
import { canonicalApprover } from '../../contract/approverName';
import { messagePage } from './pages';
import { answersJson, replyToErrors } from './errorReplies';
import { scopeRunRoutes } from './runScope';
import { addApiRoutes } from './apiRoutes';
import { addHistoryRoutes } from './historyRoutes';
import { addInboxRoutes } from './inboxRoutes';
import { addReviewRoutes } from './reviewRoutes';
import { addLinkRoutes } from './linkRoutes';
import { addAgUiRoutes } from '../agUi/agUiRoutes';
import { SLACK_ACTIONS_PATH, type SlackOptions, addSlackRoutes, slackSettingsOf } from './slackActions';

export interface InboxOptions {
  /** Reads runs and sends decisions: only runs on its task queue (runScope.ts); another queue's run is answered as unknown. */
  runner: Runner;
  port?: number;
  host?: string;
  /** Header a reverse proxy on this host sets to the signed-in approver (e.g. X-Forwarded-User): loopback only, never with keysDir. */
  approverHeader?: string;
  /** Bearer tokens and the approvers they stand for (COUNTERSIGN_SERVE_TOKENS). */
  tokens?: Array<{ approver: string; token: string }>;
  /** A verifying proxy's signed identity assertion (Google IAP, Cloudflare Access, Pomerium, oauth2-proxy). */
  approverJwt?: JwtIdentityOptions;
  /** A one-time sign-in link for the local user (npm start): loopback only; the result's signInUrl. */
  localSignIn?: LocalSignInOptions;
  /** Approvers' private keys (`<approver>.private.jwk`) the server signs their decisions with: only with a verified identity source. */
  keysDir?: string;
  /** COUNTERSIGN_LINK_SECRET: one-click links minted by the workers are checked with it. */
  linkSecret?: string;
  /** COUNTERSIGN_MIXED_SCRIPT_NAMES=true: approver names may mix scripts (look-alikes of a known one stay refused). */
  mixedScriptNames?: boolean;
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

const CLOSE_GRACE_MS = 2_000;

/** CSRF tokens are minted for, and checked against, this: a token minted for one approver fails for another. */
const csrfUser = (who: Identity | null): string => (who ? canonicalApprover(who.approver) : '');

export async function startInbox(
  o: InboxOptions,
): Promise<{ url: string; signInUrl?: string; close(): Promise<void> }> {
  const host = o.host ?? '127.0.0.1';
  const mixedScripts = o.mixedScriptNames ?? false;
  const slack = slackSettingsOf(o.slack, o.linkSecret, { mixedScripts });
  const identity = identitySettingsFor(host, { ...o, ...(slack ? { slackApprovers: slack.users.values() } : {}) });

  // Link tokens travel in the path (up to 2 KB).
  // Fastify's request ids name internal errors to the client; their details go to the log under that id (errorReplies.ts).
  const app = Fastify({
    bodyLimit: o.bodyLimitBytes ?? 256 * 1024,
    genReqId: newRequestId,
    logger: { level: 'error', stream: o.log ?? process.stderr },
    routerOptions: { maxParamLength: 2048 },
  });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
  });
  await app.register(cookie, { secret: randomBytes(32).toString('hex') });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', path: '/' },
    csrfOpts: { hmacKey: randomBytes(32).toString('hex'), userInfo: true },
    getUserInfo: (req) => csrfUser(req.identity),
  });
  await app.register(formbody, { bodyLimit: o.bodyLimitBytes ?? 256 * 1024 });

  app.decorateRequest('identity', null as unknown as Identity);
  app.addHook('onRequest', async (req, reply) => {
    if (
      req.url.startsWith('/assets/') ||
      (slack && req.routeOptions.url === SLACK_ACTIONS_PATH) ||
      req.routeOptions.url === SIGN_IN_PATH
    )
      return;
    const who = await identify(req.headers, req.cookies[SESSION_COOKIE], identity);
    if (!who || 'problem' in who) {
      reply.code(401).header('www-authenticate', 'Bearer');
      const why = who?.problem ?? signInHint(identity, o.approverHeader);
      return answersJson(req.url)
        ? reply.send({ error: `not signed in: ${why}` })
        : reply.type('text/html').send(messagePage('Not signed in', `Not signed in: ${why}.`));
    }
    req.identity = who;
    // Every form on every page gets a token bound to this approver: no route can mint an unbound one.
    const mint = reply.generateCsrf.bind(reply);
    reply.generateCsrf = (opts) => mint({ ...opts, userInfo: csrfUser(who) });
  });
  replyToErrors(app);

  const runner = o.runner;
  const ctx: InboxContext = {
    runner,
    decider: new Decider(runner, o.keysDir, identity.names),
    ...(o.linkSecret ? { linkSecret: o.linkSecret } : {}),
    ...(o.reviewsWorkflowId ? { reviewsWorkflowId: o.reviewsWorkflowId } : {}),
    guardCsrf: (req, reply) =>
      req.identity.via === 'token'
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) =>
            app.csrfProtection(req, reply, (err?: Error) => (err ? reject(err) : resolve())),
          ),
  };
  app.get('/assets/inbox.css', (_req, reply) =>
    reply.type('text/css').header('cache-control', 'no-cache').send(INBOX_CSS),
  );
  app.get('/assets/run.js', (_req, reply) =>
    reply.type('text/javascript').header('cache-control', 'no-cache').send(RUN_JS),
  );
  scopeRunRoutes(app, runner);
  addInboxRoutes(app, ctx);
  addReviewRoutes(app, ctx);
  addHistoryRoutes(app, ctx);
  addApiRoutes(app, ctx);
  addLinkRoutes(app, ctx);
  addAgUiRoutes(app, { runner, decider: ctx.decider, approverOf: (req) => req.identity.approver });
  if (slack) await addSlackRoutes(app, ctx, slack, o.bodyLimitBytes ?? 256 * 1024);
  if (identity.signIn) addSignInRoute(app, identity.signIn);

  const address = await app.listen({ port: o.port ?? 8234, host }).catch(async (err: unknown) => {
    await app.close(); // a taken port: nothing of this server stays behind (the caller may try another)
    throw err;
  });
  const url = address.replace('[::1]', 'localhost');
  // An open run page holds a live event stream: closing waits for it a moment, then ends every connection.
  const close = async () => {
    const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    await app.close().finally(() => clearTimeout(force));
  };
  return { url, ...(identity.signIn ? { signInUrl: `${url}/sign-in/${identity.signIn.mintLink()}` } : {}), close };
}
