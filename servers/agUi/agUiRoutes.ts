// The AG-UI endpoint (docs/ag-ui.md): POST /ag-ui/{agent} takes a RunAgentInput and streams the thread's run as AG-UI
// events over SSE. A thread is a Countersign session (client/sessions): its newest run holds it while it runs or waits.
// No second approval path: resume entries become decisions through Decider (the inbox's, identity from the request,
// never the body), new user messages the run's addInput, and the stream is the run's own event log. Only JSON bodies
// are taken and no CORS headers are sent, so a cross-site page cannot post a decision with a user's credentials.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eventsQuery } from '../../contract/messages';
import { describeZodError } from '../../contract/zodErrors';
import type { PendingApproval } from '../../contract/runViews';
import type { Runner } from '../../client/run/runner';
import { CountersignError, NoWorkerError } from '../../client/errors';
import { servedAgents } from '../../client/run/servedAgents';
import { sessionHead } from '../../client/sessions/sessions';
import { Decider, DecisionProblem } from '../inbox/deciding';
import { type AgUiEvent, AgUiTranslator, interruptOf } from './agUiEvents';
import {
  type AgUiInput,
  decisionsOf,
  heldSnapshot,
  holdsOurs,
  newUserMessages,
  notHeld,
  runAgentInputSchema,
} from './agUiInput';
import { threadView } from './agUiThreads';
import { openEventStream } from '../eventStream';

export interface AgUiContext {
  runner: Runner;
  /** How decisions are made for a person (default: one that signs nothing, as an inbox without --keys-dir). */
  decider?: Decider;
  /**
   * The request's verified approver (a JWT your server checked, say): never a field of the body. Asked first on every
   * route; throw to refuse (an error with `statusCode: 401` is Fastify's 401).
   */
  approverOf: (req: FastifyRequest) => string;
}

type Ready = AgUiContext & { decider: Decider; shown: ShownPauses };

/**
 * The pauses this server last showed, by thread: its run, the calls in the pause and where in the run's log it is. A
 * resume of those calls needs no read before its decision (a call's kind, approvers and signing never change); the
 * run's own intake refuses one decided meanwhile, or a run that ended, as always. Bounded; a miss (another server, a
 * restart) reads the thread and the run.
 */
class ShownPauses {
  private readonly byThread = new Map<
    string,
    { workflowId: string; pending: PendingApproval[]; after: number; at: number }
  >();
  remember(threadId: string, workflowId: string, pending: PendingApproval[], after: number): void {
    this.byThread.delete(threadId);
    this.byThread.set(threadId, { workflowId, pending, after, at: Date.now() });
    if (this.byThread.size > 1000) this.byThread.delete(this.byThread.keys().next().value!);
  }
  forget(threadId: string): void {
    this.byThread.delete(threadId);
  }
  /** The pause shown, if it holds every call named and is at most ten minutes old. */
  covering(threadId: string, callIds: string[]) {
    const shown = this.byThread.get(threadId);
    if (!shown || Date.now() - shown.at > 600_000 || !callIds.length) return undefined;
    return callIds.every((id) => shown.pending.some((p) => p.callId === id)) ? shown : undefined;
  }
}

type Send = (event: AgUiEvent) => void;
const lineOf = (err: unknown) => ((err as Error).message ?? String(err)).split('\n')[0]!;

/** The run's last event so far: a stream that starts now starts after it. */
async function lastSeq(runner: Runner, workflowId: string): Promise<number> {
  return (await runner.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0, limit: 1 })).last;
}

/**
 * A read of the run, asked again once when no worker answered it: a worker started again a moment ago finds the run
 * still pinned to its dead predecessor's sticky queue, and the first unanswered read unpins it (workerPresence.ts).
 */
async function servedRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof NoWorkerError)) throw err;
    return read();
  }
}

/** The user messages of the run's conversation, in order. */
async function userTexts(runner: Runner, workflowId: string): Promise<string[]> {
  const texts: string[] = [];
  for await (const item of runner.conversation(workflowId))
    if (item.type === 'message' && item.role === 'user') texts.push(item.content.trim());
  return texts;
}

/** Where the run last paused: a front end that comes back after a decision made elsewhere streams on from there. */
async function lastPause(runner: Runner, workflowId: string): Promise<number> {
  const handle = runner.client.workflow.getHandle(workflowId);
  let found = 0;
  for (let after = 0; ;) {
    const page = await handle.query(eventsQuery, { after, limit: 500 });
    for (const e of page.events) if (e.type === 'run_paused') found = e.seq;
    if (!page.events.length) return found;
    after = page.next;
  }
}

/** Streams the run from `after` until it pauses for a person (an interrupt outcome) or ends. */
async function follow(
  ctx: Ready,
  input: AgUiInput,
  workflowId: string,
  after: number,
  send: Send,
  runUrl: string,
  signal: AbortSignal,
) {
  const t = new AgUiTranslator(workflowId);
  for await (const e of ctx.runner.stream(workflowId, { after, signal })) {
    if (e.type === 'run_paused') {
      const pending = await ctx.runner.pending(workflowId);
      if (!pending.length) continue; // decided meanwhile elsewhere: the run goes on
      ctx.shown.remember(input.threadId, workflowId, pending, e.seq);
      t.finish().forEach(send);
      return finishInterrupted(input, pending, send, runUrl);
    }
    if (e.type === 'run_completed' || e.type === 'run_failed') ctx.shown.forget(input.threadId);
    if (e.type === 'run_completed') {
      t.finish().forEach(send);
      return send({ ...ids(input), type: 'RUN_FINISHED', outcome: { type: 'success' }, result: e.finalOutput });
    }
    if (e.type === 'run_failed') {
      t.finish().forEach(send);
      return send({ type: 'RUN_ERROR', message: `the run failed: ${e.error.split('\n')[0]}`, code: e.errorType });
    }
    t.translate(e).forEach(send);
  }
}

const ids = (input: AgUiInput) => ({ threadId: input.threadId, runId: input.runId });

function finishInterrupted(input: AgUiInput, pending: PendingApproval[], send: Send, runUrl: string) {
  const interrupts = pending.map((p) => interruptOf(p, runUrl));
  send({ ...ids(input), type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts } });
}

/** Starts the thread's next run, or answers and resumes the one that holds it; then streams it. */
async function drive(
  ctx: Ready,
  req: FastifyRequest,
  approver: string,
  agent: string,
  input: AgUiInput,
  send: Send,
  signal: AbortSignal,
) {
  const { runner } = ctx;
  // The front end's new user messages are the thread's from here on (sent once they are added, or found held).
  const held = () => {
    const messages = heldSnapshot(input.messages);
    if (messages) send({ type: 'MESSAGES_SNAPSHOT', messages });
  };
  const runUrl = (workflowId: string) => `${req.protocol}://${req.host}/runs/${encodeURIComponent(workflowId)}`;
  let messages = newUserMessages(input.messages);
  const resume = input.resume ?? [];
  const shown = ctx.shown.covering(
    input.threadId,
    resume.map((r) => r.interruptId),
  );
  const head = shown
    ? { workflowId: shown.workflowId, busy: 'AwaitingApproval' }
    : await sessionHead(runner.client, input.threadId);
  if (head && messages.length && !holdsOurs(input.messages))
    messages = notHeld(messages, await servedRead(() => userTexts(runner, head.workflowId)));
  if (!head?.busy) {
    if (resume.length)
      throw new DecisionProblem(`interrupt ${resume[0]!.interruptId} is not open: the thread waits for nothing`);
    if (!messages.length) {
      if (!head) throw new DecisionProblem('a new thread needs a user message');
      held();
      return follow(
        ctx,
        input,
        head.workflowId,
        await lastPause(runner, head.workflowId),
        send,
        runUrl(head.workflowId),
        signal,
      );
    }
    // Who started it, as every run start records it: excludeRequester keeps that person from approving its calls.
    const context = { requestedBy: approver };
    const workflowId = await runner.startOnly(agent, messages.join('\n\n'), { session: input.threadId, context });
    held();
    return follow(ctx, input, workflowId, 0, send, runUrl(workflowId), signal);
  }
  const workflowId = head.workflowId;
  const [after, pending] = shown
    ? [shown.after, shown.pending]
    : await servedRead(() => Promise.all([lastSeq(runner, workflowId), runner.pending(workflowId)]));
  const decisions = decisionsOf(resume, pending); // every entry checked before any is sent
  let waiting = head.busy === 'AwaitingApproval';
  if (decisions.length) {
    const signed = decisions.filter((d) => d.token !== undefined).map((d) => ({ ...d, approver }));
    const plain = decisions.filter((d) => d.token === undefined);
    // A signed decision's token is checked by the run itself; the rest are made by the inbox's Decider. One batch:
    // the run applies all of them or, refusing one, none.
    const made = plain.length ? await ctx.decider.prepare(workflowId, plain, approver, pending) : [];
    waiting = (await runner.decide(workflowId, [...signed, ...made])).stillPending.length > 0;
    ctx.shown.forget(input.threadId); // those calls are decided: the next pause is shown anew
  }
  if (messages.length) await runner.decide(workflowId, [], messages);
  held();
  const now = waiting ? await runner.pending(workflowId) : [];
  if (now.length) {
    ctx.shown.remember(input.threadId, workflowId, now, await lastSeq(runner, workflowId));
    return finishInterrupted(input, now, send, runUrl(workflowId)); // still waiting for someone
  }
  const from = decisions.length || messages.length ? after : await lastPause(runner, workflowId);
  return follow(ctx, input, workflowId, from, send, runUrl(workflowId), signal);
}

async function agentProblem(runner: Runner, agent: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9._@-]{1,200}$/.test(agent)) return 'the agent is a plain name (letters, digits, _ . @ -)';
  const served = await servedAgents(runner.client, runner.taskQueue);
  if (served && !served.includes(agent))
    return `no agent named "${agent}" here (served: ${served.join(', ') || 'none'}): check the URL`;
  return undefined;
}

function openStream(req: FastifyRequest, reply: FastifyReply): { send: Send; signal: AbortSignal; end(): void } {
  const signal = openEventStream(req, reply);
  const send: Send = (event) => {
    if (!signal.aborted) reply.raw.write(`data: ${JSON.stringify({ ...event, timestamp: Date.now() })}\n\n`);
  };
  return { send, signal, end: () => reply.raw.end() };
}

/** The AG-UI routes on a Fastify app of your own (`countersign serve` has them): POST /ag-ui/{agent} and the thread and capabilities reads. */
export function addAgUiRoutes(app: FastifyInstance, options: AgUiContext): void {
  const ctx: Ready = { ...options, decider: options.decider ?? new Decider(options.runner), shown: new ShownPauses() };
  app.post<{ Params: { agent: string }; Body: unknown }>('/ag-ui/:agent', async (req, reply) => {
    const approver = ctx.approverOf(req); // first: a request with no identity (your check throws) gets nowhere
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return reply.code(415).send({ error: 'send the RunAgentInput as application/json' });
    const parsed = runAgentInputSchema.safeParse(req.body);
    if (!parsed.success)
      return reply.code(400).send({ error: `invalid RunAgentInput: ${describeZodError(parsed.error)}` });
    const agent = req.params.agent;
    const problem = await agentProblem(ctx.runner, agent);
    if (problem) return reply.code(404).send({ error: problem });
    const input = parsed.data;
    const { send, signal, end } = openStream(req, reply);
    send({ ...ids(input), type: 'RUN_STARTED' });
    try {
      await drive(ctx, req, approver, agent, input, send, signal);
    } catch (err) {
      const known = err instanceof CountersignError || err instanceof DecisionProblem;
      if (!known) req.log.error({ err, reqId: req.id }, 'ag-ui run failed');
      send({ type: 'RUN_ERROR', message: known ? lineOf(err) : `internal error (request ${req.id})` });
    } finally {
      end();
    }
  });

  app.get<{ Params: { agent: string; threadId: string } }>('/ag-ui/:agent/threads/:threadId', async (req, reply) => {
    ctx.approverOf(req); // the thread's calls and messages are for people who may see them
    const view = await threadView(ctx.runner, req.params.threadId, `${req.protocol}://${req.host}`);
    return view ?? reply.code(404).send({ error: `no thread ${req.params.threadId}` });
  });

  app.get<{ Params: { agent: string } }>('/ag-ui/:agent/capabilities', async (req, reply) => {
    ctx.approverOf(req);
    const problem = await agentProblem(ctx.runner, req.params.agent);
    if (problem) return reply.code(404).send({ error: problem });
    return {
      identity: { name: req.params.agent, type: 'countersign', provider: 'countersign' },
      transport: { streaming: true, resumable: true },
      tools: { supported: true, parallelCalls: true, clientProvided: false },
      state: { persistentState: true },
      humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true },
    };
  });
}
