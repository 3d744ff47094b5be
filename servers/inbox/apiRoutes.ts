// The JSON API behind the pages, for scripts and other front ends: the same identity, the same validation and
// refusals as the `decide` update (a refusal is 422 with the run's one-line message; nothing changes).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { decisionSchema } from '../../contract/messages';
import { describeZodError } from '../../contract/zodErrors';
import { CountersignError, RunNotFoundError } from '../../client/errors';
import { followEvents } from '../../client/run/eventFollowing';
import { DecisionProblem } from './deciding';
import type { InboxContext } from './inboxServer';
import { QUERY_NAME } from '../../client/visibility';
import { openEventStream } from '../eventStream';

const bodySchema = z.strictObject({ decisions: z.array(decisionSchema).min(1, 'send at least one decision').max(100) });

export function addApiRoutes(app: FastifyInstance, ctx: InboxContext): void {
  app.get<{ Querystring: { agent?: string; tool?: string } }>('/api/pending', async (req, reply) => {
    for (const v of [req.query.agent, req.query.tool])
      if (v !== undefined && !(v.length <= 200 && QUERY_NAME.test(v)))
        return reply.code(400).send({ error: 'agent and tool are plain names (letters, digits, _ . @ -)' });
    return ctx.runner.pending({
      ...(req.query.agent ? { agent: req.query.agent } : {}),
      ...(req.query.tool ? { tool: req.query.tool } : {}),
      taskQueue: ctx.runner.taskQueue,
    });
  });

  // An unknown run (or another queue's: runScope.ts) is a 404 from the error handler (errorReplies.ts).
  app.get<{ Params: { id: string } }>('/api/runs/:id', (req) => ctx.runner.describe(req.params.id));

  app.post<{ Params: { id: string }; Body: unknown }>('/api/runs/:id/decisions', async (req, reply) => {
    await ctx.guardCsrf(req, reply);
    const parsed = bodySchema.safeParse(req.body);
    if (!parsed.success) return reply.code(400).send({ error: `invalid request: ${describeZodError(parsed.error)}` });
    try {
      return await ctx.decider.decide(req.params.id, parsed.data.decisions, req.identity.approver);
    } catch (err) {
      if (err instanceof RunNotFoundError) throw err;
      if (err instanceof DecisionProblem || err instanceof CountersignError)
        return reply.code(422).send({ error: err.message });
      throw err;
    }
  });

  // Live updates for the run page: one server-sent event per run event (the page reloads its parts on each).
  app.get<{ Params: { id: string }; Querystring: { after?: string } }>('/api/runs/:id/events', async (req, reply) => {
    const signal = openEventStream(req, reply);
    try {
      for await (const event of followEvents(ctx.runner.client, req.params.id, {
        after: Number(req.query.after) || 0,
        signal,
      })) {
        reply.raw.write(`id: ${event.seq}\ndata: ${JSON.stringify({ seq: event.seq, type: event.type })}\n\n`);
      }
      reply.raw.write('event: ended\ndata: {}\n\n');
    } catch {
      // the reader left, or the run is gone: nothing more to send
    } finally {
      reply.raw.end();
    }
  });
}
