// The pages: the inbox (every pending call across runs, filterable), a run (conversation, audit, live updates), and
// the form posts that decide; a refused decision comes back inline, next to its call, with what was typed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eventsQuery } from '../../contract/messages';
import { CountersignError } from '../../client/errors';
import { DecisionProblem, decisionFromForm } from './deciding';
import { type FormError, inboxPage, runPage } from './pages';
import type { InboxContext } from './inboxServer';
import { statusLineOf, withStatusLine } from './statusLines';
import { QUERY_NAME } from '../../client/visibility';
import { pendingListing } from '../../client/run/runReads';

type RunParams = { Params: { id: string } };

export function addInboxRoutes(app: FastifyInstance, ctx: InboxContext): void {
  async function inbox(
    req: FastifyRequest,
    reply: FastifyReply,
    filter: { agent?: string; tool?: string },
    extra: { error?: FormError; notice?: string } = {},
  ) {
    const clean = Object.fromEntries(
      Object.entries(filter).filter(([, v]) => typeof v === 'string' && v.length <= 200 && QUERY_NAME.test(v)),
    );
    const { calls, unserved } = await pendingListing(ctx.runner.client, { ...clean, taskQueue: ctx.runner.taskQueue });
    // Runs no worker can answer for are missing from the list: say why (workerPresence.ts), beside any status line.
    const notice = [extra.notice, ...unserved.map((u) => `${u.workflowIds.length} waiting run(s) not shown: ${u.line}`)]
      .filter(Boolean)
      .join(' · ');
    return reply.type('text/html').send(
      inboxPage(calls, {
        csrf: reply.generateCsrf(),
        approver: req.identity.approver,
        filter: clean,
        ...extra,
        ...(notice ? { notice } : {}),
      }),
    );
  }

  async function run(req: FastifyRequest, reply: FastifyReply, workflowId: string, error?: FormError) {
    const [snapshot, events] = await Promise.all([
      ctx.runner.describe(workflowId),
      ctx.runner.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0, limit: 1 }),
    ]);
    return reply.type('text/html').send(
      runPage(workflowId, snapshot, {
        csrf: reply.generateCsrf(),
        approver: req.identity.approver,
        eventsAfter: events.last,
        ...(error ? { error } : {}),
      }),
    );
  }

  app.get<{ Querystring: { agent?: string; tool?: string; done?: string } }>('/', (req, reply) => {
    const notice = statusLineOf(req, req.query.done);
    return inbox(req, reply, { agent: req.query.agent, tool: req.query.tool }, notice ? { notice } : {});
  });

  // An unknown run (or another queue's: runScope.ts) is a 404 from the error handler (errorReplies.ts).
  app.get<RunParams>('/runs/:id', (req, reply) => run(req, reply, req.params.id));

  app.post<RunParams & { Body: Record<string, unknown> }>('/runs/:id/decide', async (req, reply) => {
    await ctx.guardCsrf(req, reply);
    const workflowId = req.params.id;
    const body = req.body ?? {};
    const back = body.back === 'run' ? 'run' : 'inbox';
    try {
      const d = decisionFromForm(body);
      const result = await ctx.decider.decide(workflowId, [d], req.identity.approver);
      const done = result.applied.map((a) => `${a.outcome} ${a.toolName} (call ${a.callId})`).join(', ');
      return reply.redirect(
        back === 'run' ? `/runs/${encodeURIComponent(workflowId)}` : withStatusLine(reply, '/', `Decided: ${done}`),
        303,
      );
    } catch (err) {
      if (!(err instanceof DecisionProblem || err instanceof CountersignError)) throw err;
      const error: FormError = {
        callId: String(body.callId ?? ''),
        message: err.message,
        ...(typeof body.editedArguments === 'string' ? { editedArguments: body.editedArguments } : {}),
      };
      reply.code(422);
      return back === 'run' ? run(req, reply, workflowId, error) : inbox(req, reply, {}, { error });
    }
  });
}
