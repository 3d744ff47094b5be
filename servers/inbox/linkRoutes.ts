// One-click links from notifications. A GET only shows what the link would do (mail scanners and chat previews
// fetch links); the POST from that page decides, as the signed-in approver, once. A used, expired, tampered or
// stale link (the call was decided, or its arguments are not the ones the link was made for) says so and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type LinkClaims, linkMismatch, readLinkToken } from '../../links/actionLinks';
import { CountersignError, RunNotFoundError } from '../../client/errors';
import { DecisionProblem } from './deciding';
import { type InboxCall, linkPage, messagePage } from './pages';
import type { InboxContext } from './inboxServer';
import { ownRun } from './runScope';
import type { YesNo } from '../../contract/decisionWords';

type LinkRoute = { Params: { token: string }; Body: Record<string, unknown> };

export function addLinkRoutes(app: FastifyInstance, ctx: InboxContext): void {
  const refuse = (req: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    reply
      .code(status)
      .type('text/html')
      .send(messagePage('This link cannot be used', message, req.identity.approver));

  /** The link's claims and the call it is for, still waiting with the same arguments; or a refusal sent. */
  async function open(
    req: FastifyRequest<LinkRoute>,
    reply: FastifyReply,
  ): Promise<{ claims: LinkClaims; call?: InboxCall } | undefined> {
    if (!ctx.linkSecret)
      return void refuse(
        req,
        reply,
        404,
        'This server takes no links: set COUNTERSIGN_LINK_SECRET (the same as the workers’).',
      );
    const read = readLinkToken(ctx.linkSecret, req.params.token);
    if ('problem' in read) return void refuse(req, reply, 410, read.problem);
    const { claims } = read;
    try {
      await ownRun(ctx.runner, claims.wf); // a run of another task queue is refused as an unknown one
    } catch (err) {
      if (err instanceof RunNotFoundError) return void refuse(req, reply, 404, err.message);
      throw err;
    }
    if (claims.act === 'view') return { claims };
    const pending = await ctx.runner.pending(claims.wf).catch(() => []);
    const call = pending.find((p) => p.callId === claims.call);
    if (!call)
      return void refuse(
        req,
        reply,
        410,
        `Call ${claims.call} no longer waits for a decision (it was decided, or its run ended).`,
      );
    const mismatch = linkMismatch(claims, call);
    if (mismatch === 'arguments')
      return void refuse(
        req,
        reply,
        409,
        `Call ${claims.call} now has other arguments than this link was made for: open it from the inbox.`,
      );
    if (mismatch === 'target')
      return void refuse(
        req,
        reply,
        409,
        `What call ${claims.call} acts on changed after this link was made: open it from the inbox and decide on what it acts on now.`,
      );
    return { claims, call: { ...call, workflowId: claims.wf } };
  }

  app.get<LinkRoute>('/links/:token', async (req, reply) => {
    const opened = await open(req, reply);
    if (!opened) return reply;
    if (!opened.call) return reply.redirect(`/runs/${encodeURIComponent(opened.claims.wf)}`, 303);
    return reply.type('text/html').send(
      linkPage({
        csrf: reply.generateCsrf(),
        approver: req.identity.approver,
        action: opened.claims.act as YesNo,
        call: opened.call,
        token: req.params.token,
      }),
    );
  });

  app.post<LinkRoute>('/links/:token', async (req, reply) => {
    await ctx.guardCsrf(req, reply);
    const opened = await open(req, reply);
    if (!opened) return reply;
    const { claims } = opened;
    if (!opened.call) return reply.redirect(`/runs/${encodeURIComponent(claims.wf)}`, 303);
    const message = typeof req.body?.message === 'string' && req.body.message ? { message: req.body.message } : {};
    const seen = opened.call.fingerprint !== undefined ? { fingerprint: opened.call.fingerprint } : {}; // the run refuses it if the target changed meanwhile
    try {
      const result = await ctx.decider.decide(
        claims.wf,
        [{ callId: claims.call, decision: claims.act as YesNo, linkId: claims.id, ...message, ...seen }],
        req.identity.approver,
      );
      const a = result.applied[0]!;
      return reply
        .type('text/html')
        .send(
          messagePage(
            'Done',
            `${a.outcome} ${a.toolName} (call ${a.callId}) as ${req.identity.approver}.`,
            req.identity.approver,
          ),
        );
    } catch (err) {
      if (err instanceof DecisionProblem || err instanceof CountersignError)
        return refuse(req, reply, 409, err.message);
      throw err;
    }
  });
}
