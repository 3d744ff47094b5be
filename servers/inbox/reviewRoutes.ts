// GET /reviews: the review queue of the inbox's task queue (audit-only calls not yet reviewed, read from the approvals
// ledger by the same reader as `countersign approvals --status unreviewed`; each call's arguments, which the ledger
// keeps only as a digest, from its run while a worker answers for it); POST /reviews: "Looks fine" or "Flag" with a note, recorded in the
// reviews workflow as the signed-in approver (client/approvals/reviews.ts). A refusal comes back inline (422).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { approvalsAcross } from '../../client/approvals/approvalsReport';
import { reviewCall } from '../../client/approvals/reviews';
import { CountersignError, RunNotFoundError } from '../../client/errors';
import { auditOf } from '../../client/run/runReads';
import { isReviewable } from '../../core/approvals/reviewQueue';
import type { InboxContext } from './inboxServer';
import { inboxLedger } from './inboxLedger';
import { forEachLimited } from '../../client/visibility';
import { ownRun } from './runScope';
import { statusLineOf, withStatusLine } from './statusLines';
import { type QueuedCall, type ReviewFormError, reviewPage } from './reviewPages';

const field = (body: Record<string, unknown>, name: string) =>
  typeof body[name] === 'string' ? (body[name] as string) : '';

/** How long a run may take to hand over its calls' arguments: a run no worker answers for is shown without them. */
const ARGUMENTS_WAIT_MS = 3_000;

/** The unreviewed calls, oldest first, with their arguments from each run's audit where a worker answers. */
async function queue(ctx: InboxContext, ledger: LedgerStore): Promise<QueuedCall[]> {
  const records = await approvalsAcross(ctx.runner.client, {
    status: 'unreviewed',
    taskQueue: ctx.runner.taskQueue,
    ledger,
  });
  const argsByRun = new Map<string, Map<string, string | undefined>>();
  const client = ctx.runner.client;
  await forEachLimited([...new Set(records.map((r) => r.workflowId))], 8, async (workflowId) => {
    const args = new Map<string, string | undefined>();
    await client
      .withDeadline(Date.now() + ARGUMENTS_WAIT_MS, async () => {
        for await (const e of auditOf(client, workflowId)) if (isReviewable(e)) args.set(e.callId, e.arguments);
      })
      .catch(() => undefined); // no worker for the run (or it is gone): the call is reviewed by its record alone
    argsByRun.set(workflowId, args);
  });
  return records.map((r) => ({ ...r, arguments: argsByRun.get(r.workflowId)?.get(r.callId) }));
}

export function addReviewRoutes(app: FastifyInstance, ctx: InboxContext): void {
  const ledger = inboxLedger(app);
  async function page(
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: ReviewFormError; notice?: string } = {},
  ) {
    return reply.type('text/html').send(
      reviewPage(await queue(ctx, await ledger()), {
        csrf: reply.generateCsrf(),
        approver: req.identity.approver,
        ...extra,
      }),
    );
  }

  app.get<{ Querystring: { done?: string } }>('/reviews', (req, reply) => {
    const notice = statusLineOf(req, req.query.done);
    return page(req, reply, notice ? { notice } : {});
  });

  app.post<{ Body: Record<string, unknown> }>('/reviews', async (req, reply) => {
    await ctx.guardCsrf(req, reply);
    const body = req.body ?? {};
    const [workflowId, callId, action, note] = [
      field(body, 'workflowId'),
      field(body, 'callId'),
      field(body, 'action'),
      field(body, 'note'),
    ];
    try {
      if (action !== 'ok' && action !== 'flag')
        throw new CountersignError('the form says neither "Looks fine" nor "Flag": reload the page and try again');
      if (action === 'flag' && !note.trim())
        throw new CountersignError('a flag needs a note saying why: write one and flag again');
      if (workflowId) await ownRun(ctx.runner, workflowId); // another queue's run is refused as an unknown one
      const review = await reviewCall(
        ctx.runner.client,
        ctx.runner.taskQueue,
        {
          workflowId,
          callId,
          verdict: action === 'ok' ? 'reviewed' : 'flagged',
          ...(action === 'flag' ? { note } : {}),
          reviewer: req.identity.approver,
        },
        { workflowId: ctx.reviewsWorkflowId },
      );
      return reply.redirect(
        withStatusLine(reply, '/reviews', `Reviewed: ${review.verdict} ${review.toolName ?? ''} (call ${callId})`),
        303,
      );
    } catch (err) {
      if (!(err instanceof CountersignError)) throw err;
      reply.code(err instanceof RunNotFoundError ? 404 : 422);
      return page(req, reply, { error: { workflowId, callId, message: err.message, ...(note ? { note } : {}) } });
    }
  });
}
