// The rest of AG-UI's resume payloads, through @ag-ui/client's HttpAgent on a real dev server and the scripted model,
// every event checked against @ag-ui/core's schemas: alwaysApprove (the tool is not asked again in the run),
// status "cancelled" (a rejection whose message the model reads), an uncertain call (done); an interrupt's approvers,
// expiry and inbox link, and a resume by someone not among the approvers refused. A message sent while the
// thread waits is added once; a failed run is a one-line RUN_ERROR; a thread two front ends start at once starts once.
// Then what keeps a cross-site page out: form and text/plain posts are 415s and no response carries a CORS header.
// Last, the routes on a Fastify app of the service's own (addAgUiRoutes from countersign/servers) with its own identity
// check.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { addAgUiRoutes } from '../../servers';
import { startInbox } from '../../servers/inbox/inboxServer';
import { frontEnd, type RunOutcome } from '../support/agUiClient';
import { outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(180_000);

const charged: string[] = [];
const till = defineAgent({
  name: 'till',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'charge',
      description: 'Charge a card (slow, not idempotent)',
      parameters: z.object({ amount: z.number() }),
      timeout: '1s',
      idempotent: false,
      execute: async ({ amount }, ctx) => {
        charged.push(ctx.callId);
        await new Promise((r) => setTimeout(r, 3_000));
        return `charged ${amount}`;
      },
    }),
    defineTool({
      name: 'close_till',
      description: 'Close the till',
      parameters: z.object({ till: z.string() }),
      needsApproval: true,
      approvers: ['dan'],
      approvalTimeout: '2h',
      execute: ({ till }) => `closed ${till}`,
    }),
  ],
});
const looper = defineAgent({
  name: 'looper',
  instructions: 'test',
  tools: [defineTool({ name: 'step', description: 'Step', parameters: z.object({}), execute: () => 'stepped' })],
});

let h: Harness;
let runner: Runner;
let inbox: { url: string; close(): Promise<void> };
let own: FastifyInstance;
let ownUrl: string;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, till, looper]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
  own = Fastify();
  // The service's own check: a bearer token it issued, else a 401 of its own.
  const users: Record<string, string> = { 'Bearer t-ann': 'ann' };
  addAgUiRoutes(own, {
    runner,
    approverOf: (req) => {
      const user = users[req.headers.authorization ?? ''];
      if (!user) throw Object.assign(new Error('sign in first'), { statusCode: 401 });
      return user;
    },
  });
  ownUrl = await own.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await own?.close();
  await inbox?.close();
  await h?.close();
});

const url = (agent = 'email-assistant') => `${inbox.url}/ag-ui/${agent}`;
const mail = (to: string, callId: string) => ({
  toolCalls: [{ name: 'send_email', arguments: { to, subject: 'Hi', body: 'b' }, callId }],
});
const resolved = (interruptId: string, payload: unknown) => ({
  resume: [{ interruptId, status: 'resolved' as const, payload }],
});
const sentTo = async (workflowId: string) =>
  (await outboxOf(h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`)).map((e) => e.to);
const decisionsOf = async (workflowId: string) =>
  (await runner.audit(workflowId)).map((a) => [a.callId, a.decision, a.approver ?? '-']);

test('alwaysApprove: the tool is approved for the rest of the run, its next call runs without an interrupt', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [mail('alice@example.com', 'm1'), mail('bob@example.com', 'm2'), { text: 'Both sent.' }]);
  const ann = frontEnd(url(), 'ann', threadId);
  expect((await ann.run('mail alice, then bob')).interrupts.map((i) => i.id)).toEqual(['m1']);
  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true, alwaysApprove: true } }],
  });
  expect(done.error).toBeUndefined();
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Both sent.' });
  expect(done.events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => e.toolCallId)).toEqual(['m1', 'm2']);
  expect(await sentTo(workflowId)).toEqual(['alice@example.com', 'bob@example.com']);
  expect((await decisionsOf(workflowId)).map(([callId, decision]) => [callId, decision])).toEqual([
    ['m1', 'approved'],
    ['m2', 'auto_approved'],
  ]);
});

test('status "cancelled" is a rejection: the tool does not run and the model reads the message', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [mail('carol@example.com', 'm1'), { text: 'Not sent.' }]);
  const ann = frontEnd(url(), 'ann', threadId);
  expect((await ann.run('mail carol')).interrupts.map((i) => i.id)).toEqual(['m1']);
  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'cancelled', payload: { message: 'carol is on leave' } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Not sent.' });
  expect(await sentTo(workflowId)).toEqual([]);
  expect(await decisionsOf(workflowId)).toEqual([['m1', 'rejected', 'ann']]);
  const lastRequest = h.model.requests.filter((r) => r.runId === workflowId).at(-1)!;
  expect(JSON.stringify(lastRequest.items)).toContain('carol is on leave');
});

test('an uncertain call (timed out after it started): answered through resume as done, it never runs again', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'charge', arguments: { amount: 12 }, callId: 'c1' }] },
    { text: 'Charged.' },
  ]);
  const ann = frontEnd(url('till'), 'ann', threadId);
  const first = await ann.run('charge 12');
  expect(first.interrupts).toEqual([
    expect.objectContaining({
      id: 'c1',
      reason: 'uncertain_call',
      toolCallId: 'c1',
      responseSchema: expect.objectContaining({ required: ['decision'] }),
      metadata: expect.objectContaining({ kind: 'uncertain', toolName: 'charge' }),
    }),
  ]);
  const vague = await ann.run(undefined, {
    resume: [{ interruptId: 'c1', status: 'resolved', payload: { decision: 'maybe' } }],
  });
  expect(vague.error).toBe('interrupt c1: payload.decision is retry, done or failed');
  expect((await runner.pending(workflowId)).map((p) => [p.callId, p.kind])).toEqual([['c1', 'uncertain']]);
  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'c1', status: 'resolved', payload: { decision: 'done', result: 'charged by hand' } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Charged.' });
  const output = (await runner.describe(workflowId)).items.find((i) => i.type === 'function_call_output');
  expect(output).toMatchObject({ callId: 'c1', output: 'charged by hand' });
  expect(charged).toEqual(['c1']); // started once, before it timed out; never again
});

test("an interrupt says who may decide, until when, and where the inbox shows it; anyone else's resume is refused", async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'close_till', arguments: { till: 't3' }, callId: 'k1' }] },
    { text: 'Closed.' },
  ]);
  const before = Date.now();
  const [asked] = (await frontEnd(url('till'), 'ann', threadId).run('close t3')).interrupts as Array<
    RunOutcome['interrupts'][number] & { expiresAt: string }
  >;
  expect(asked).toMatchObject({
    id: 'k1',
    metadata: { approvers: ['dan'], inboxUrl: `${inbox.url}/runs/${workflowId}` },
  });
  const expires = Date.parse(asked!.expiresAt); // two hours after it was asked
  expect(expires).toBeGreaterThanOrEqual(before + 7_200_000 - 1_000);
  expect(expires).toBeLessThanOrEqual(Date.now() + 7_200_000);
  const ann = frontEnd(url('till'), 'ann', threadId);
  const refused = await ann.run(undefined, resolved('k1', { approved: true }));
  expect(refused.error).toMatch(/^[^\n]*\bann\b[^\n]*\bdan\b[^\n]*$/);
  expect(await decisionsOf(workflowId)).toEqual([]);
  const done = await frontEnd(url('till'), 'dan', threadId).run(undefined, resolved('k1', { approved: true }));
  expect(done.last).toMatchObject({ outcome: { type: 'success' }, result: 'Closed.' });
  expect(await decisionsOf(workflowId)).toEqual([['k1', 'approved', 'dan']]);
});

test('a message sent to a waiting thread is added once: the front end resends it with every later run', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [mail('erin@example.com', 'm1'), { text: 'Sent, and noted.' }]);
  const ann = frontEnd(url(), 'ann', threadId);
  expect((await ann.run('mail erin')).interrupts.map((i) => i.id)).toEqual(['m1']);
  ann.agent.pendingInterrupts = []; // as after a reload: the message goes first, the answer after
  const noted = await ann.run('and cc frank');
  expect(noted.interrupts.map((i) => i.id)).toEqual(['m1']); // still waiting, nothing streamed
  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Sent, and noted.' });
  const lastRequest = h.model.requests.filter((r) => r.runId === workflowId).at(-1)!;
  expect(JSON.stringify(lastRequest.items).split('and cc frank')).toHaveLength(2);
  // The front end still shows the message, once, and sends it as the thread's own from now on.
  expect(ann.agent.messages.filter((m) => m.content === 'and cc frank')).toHaveLength(1);
});

test('a failed run ends its stream with a RUN_ERROR in one line, no internals', async () => {
  const threadId = randomUUID();
  const steps = Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'step', arguments: {} }] }));
  h.model.script(`session-${threadId}-1`, steps);
  const failed = await frontEnd(url('looper'), 'ann', threadId).run('step on');
  expect(failed.last).toMatchObject({ type: 'RUN_ERROR', code: 'MaxTurnsExceeded' });
  expect(failed.error).toBe('the run failed: the agent used all 10 turns without a final answer');
});

test('two front ends start one new thread at the same moment: it is started once', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [mail('gus@example.com', 'm1')]);
  const [a, b] = await Promise.all(
    ['ann', 'bob'].map((who) => frontEnd(url(), who, threadId).run(`mail gus (${who})`)),
  );
  for (const outcome of [a!, b!])
    if (outcome.error) expect(outcome.error).toMatch(/^session \S+ is busy: run session-\S+-1 [^\n]*$/);
    else expect(outcome.interrupts.map((i) => i.id)).toEqual(['m1']);
  expect([a!.error, b!.error].filter(Boolean).length).toBeLessThan(2);
  const exists = (n: number) =>
    h.client.workflow
      .getHandle(`session-${threadId}-${n}`)
      .describe()
      .then(() => true)
      .catch(() => false);
  expect([await exists(1), await exists(2)]).toEqual([true, false]);
});

test('only application/json is taken, and no response carries a CORS header: a cross-site form cannot post', async () => {
  const threadId = randomUUID();
  const body = JSON.stringify({ threadId, runId: 'r', messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
  const headers = { 'X-Forwarded-User': 'ann', origin: 'https://elsewhere.example' };
  const posts = [
    ['application/x-www-form-urlencoded', `input=${encodeURIComponent(body)}`],
    ['text/plain', body],
    ['multipart/form-data; boundary=x', `--x\r\ncontent-disposition: form-data; name="a"\r\n\r\n${body}\r\n--x--\r\n`],
  ];
  for (const [type, payload] of posts) {
    const res = await fetch(url(), { method: 'POST', headers: { ...headers, 'content-type': type! }, body: payload });
    const { error } = (await res.json()) as { error: string };
    expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([415, null]);
    expect(error).toMatch(/^[^\n]*send (the RunAgentInput|it) as application\/json$/);
  }
  const preflight = await fetch(url(), {
    method: 'OPTIONS',
    headers: { ...headers, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  expect(preflight.status).toBeGreaterThanOrEqual(400);
  const cors = [...preflight.headers.keys()].filter((k) => k.startsWith('access-control-'));
  expect(cors).toEqual([]);
  const ok = await fetch(url(), { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  expect(ok.status).toBe(200);
  expect([...ok.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  await ok.text();
  // Nothing the refused posts carried started a run: the thread's only run is the JSON one's.
  const thread = await fetch(`${url()}/threads/${threadId}`, { headers });
  expect(((await thread.json()) as { runId: string }).runId).toBe(`session-${threadId}-1`);
});

test("addAgUiRoutes on the service's own Fastify app: its identity check decides who asks and who approves", async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [mail('dan@example.com', 'm1'), { text: 'Sent to dan.' }]);
  const agentUrl = `${ownUrl}/ag-ui/email-assistant`;
  // No identity: the app's own 401, on the post and on the reads alike, and nothing starts.
  const input = { threadId, runId: 'r', messages: [{ id: 'u1', role: 'user', content: 'mail dan' }] };
  const anonymous = await fetch(agentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  expect(anonymous.status).toBe(401);
  expect((await fetch(`${agentUrl}/threads/${threadId}`)).status).toBe(401);
  expect((await fetch(`${agentUrl}/capabilities`)).status).toBe(401);
  expect(h.model.requests.filter((r) => r.runId === workflowId)).toEqual([]);

  const ann = frontEnd(agentUrl, 'ann', threadId);
  ann.agent.headers = { authorization: 'Bearer t-ann' };
  expect((await ann.run('mail dan')).interrupts.map((i) => i.id)).toEqual(['m1']);
  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Sent to dan.' });
  expect(await decisionsOf(workflowId)).toEqual([['m1', 'approved', 'ann']]);
  expect(await sentTo(workflowId)).toEqual(['dan@example.com']);
});
