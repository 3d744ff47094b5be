// The AG-UI endpoint (docs/ag-ui.md) driven by @ag-ui/client's HttpAgent against `countersign serve`, a real dev
// server and the scripted model, every event checked against @ag-ui/core's schemas: text streams, two gated calls
// pause as interrupts, resume decides them through the same intake (audited with the front end's user), a decision
// made elsewhere is not offered again, refusals change nothing, and bad requests are one line each. Restarts of the
// processes are in agUiRestart.test.ts; the other kinds of pause, signing and who may decide in agUiResume.test.ts.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { frontEnd, textOf } from '../support/agUiClient';
import { cliEnv, countersignExit } from '../support/countersignCli';

jest.setTimeout(180_000);

const paid: number[] = [];
const treasurer = defineAgent({
  name: 'treasurer',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'approve_payout',
      description: 'Pay out',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      quorum: 2,
      execute: ({ amount }) => (paid.push(amount), `paid ${amount}`),
    }),
  ],
});

const scheduler = defineAgent({
  name: 'scheduler',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'book_meeting',
      description: 'Book a meeting',
      parameters: z.object({ title: z.string(), time: z.string().regex(/^\d\d:\d\d$/, 'use HH:MM') }),
      userInput: ['time'],
      execute: ({ title, time }) => `Meeting '${title}' booked at ${time}`,
    }),
  ],
});

let h: Harness;
let runner: Runner;
let inbox: { url: string; close(): Promise<void> };
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, treasurer, scheduler]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
});
afterAll(async () => {
  await inbox?.close();
  await h?.close();
});

const url = (agent = 'email-assistant') => `${inbox.url}/ag-ui/${agent}`;
const mail = (callId: string, to: string) => ({
  name: 'send_email',
  arguments: { to, subject: 'Hi', body: 'b' },
  callId,
});
const del = (callId: string) => ({ name: 'delete_record', arguments: { record_id: 'DR-42' }, callId });
const sent = async (threadId: string) =>
  (await outboxOf(h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`session-${threadId}-`));

test('two calls pause as interrupts; approve one with edits, reject the other: the tools run as decided, the answer streams', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [
    { text: 'Sending it now.', toolCalls: [mail('m1', 'alice@example.com'), del('d1')] },
    { text: 'Sent to bob; the record stays.' },
  ]);
  const ann = frontEnd(url(), 'ann', threadId);
  const first = await ann.run('Send the report to alice and delete DR-42');
  expect(first.types[0]).toBe('RUN_STARTED');
  expect(first.types).toEqual(
    expect.arrayContaining(['STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END']),
  );
  expect(textOf(first.events)).toBe('Sending it now.');
  expect(first.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
  expect(first.interrupts.map((i) => [i.id, i.reason])).toEqual([
    ['m1', 'tool_approval'],
    ['d1', 'tool_approval'],
  ]);
  expect(first.interrupts[0]).toMatchObject({ toolCallId: 'm1', responseSchema: { required: ['approved'] } });
  // Slack's one line for the call, and the tool's impact preview where it has one.
  expect(first.interrupts.map((i) => i.message)).toEqual([
    'email-assistant asks to run send_email to alice@example.com',
    'email-assistant asks to run delete_record record_id DR-42 — impact: deletes record DR-42 from the database; this cannot be undone',
  ]);

  // A second front end on the thread sees the same pauses, by GET and by a run of its own.
  const thread = (await (
    await fetch(`${url()}/threads/${threadId}`, { headers: { 'X-Forwarded-User': 'bob' } })
  ).json()) as {
    interrupts: Array<{ id: string }>;
  };
  expect(thread.interrupts.map((i) => i.id)).toEqual(['m1', 'd1']);
  const second = await frontEnd(url(), 'bob', threadId).run();
  expect(second.interrupts.map((i) => i.id)).toEqual(['m1', 'd1']);

  const resumed = await ann.run(undefined, {
    resume: [
      {
        interruptId: 'm1',
        status: 'resolved',
        payload: { approved: true, editedArgs: { to: 'bob@example.com', subject: 'Hi', body: 'b' } },
      },
      { interruptId: 'd1', status: 'resolved', payload: { approved: false, message: 'keep that record' } },
    ],
  });
  expect(resumed.error).toBeUndefined();
  expect(resumed.last).toMatchObject({
    type: 'RUN_FINISHED',
    outcome: { type: 'success' },
    result: 'Sent to bob; the record stays.',
  });
  const results = resumed.events.filter((e) => e.type === 'TOOL_CALL_RESULT');
  expect(results.map((e) => e.toolCallId).sort()).toEqual(['d1', 'm1']);
  expect(textOf(resumed.events)).toBe('Sent to bob; the record stays.');
  expect((await sent(threadId)).map((e) => e.to)).toEqual(['bob@example.com']);
  // The model heard the rejection's message; the audit names the front end's user.
  const lastRequest = h.model.requests.filter((r) => r.runId === `session-${threadId}-1`).at(-1)!;
  expect(JSON.stringify(lastRequest.items)).toContain('keep that record');
  const audit = await runner.audit(`session-${threadId}-1`);
  expect(audit.map((a) => [a.callId, a.decision, a.approver])).toEqual(
    expect.arrayContaining([
      ['m1', 'approved', 'ann'],
      ['d1', 'rejected', 'ann'],
    ]),
  );

  // The same resume again is refused in one line, and nothing changes.
  const again = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true } }],
  });
  expect(again.error).toMatch(/interrupt m1 is not open/);
  expect(await sent(threadId)).toHaveLength(1);
});

test('a decision from the CLI while the thread waits: the next run streams on with no interrupt', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [{ toolCalls: [mail('m1', 'carol@example.com')] }, { text: 'Done.' }]);
  const ann = frontEnd(url(), 'ann', threadId);
  expect((await ann.run('mail carol')).interrupts.map((i) => i.id)).toEqual(['m1']);
  // Edited arguments that fail the tool's schema: refused in one line, nothing decided.
  const bad = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true, editedArgs: { to: 5 } } }],
  });
  expect(bad.error).toMatch(/^[^\n]*\bto\b[^\n]*$/);
  expect((await runner.pending(`session-${threadId}-1`)).map((p) => p.callId)).toEqual(['m1']);
  const cli = await countersignExit(
    ['approve', `session-${threadId}-1`, 'm1', '--as', 'cli-user'],
    cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }),
  );
  expect(cli.code).toBe(0);
  // HttpAgent asks for an answer to every interrupt it holds; a front end that reloads the thread holds none now.
  const reloaded = (await (
    await fetch(`${url()}/threads/${threadId}`, { headers: { 'X-Forwarded-User': 'ann' } })
  ).json()) as {
    interrupts: unknown[];
  };
  expect(reloaded.interrupts).toEqual([]);
  ann.agent.pendingInterrupts = [];
  const next = await ann.run();
  expect(next.types).not.toContain('RUN_ERROR');
  expect(next.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Done.' });
  expect(next.events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => e.toolCallId)).toEqual(['m1']);
});

test('a quorum call needs two identities (and the same arguments: edits are refused)', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [
    { toolCalls: [{ name: 'approve_payout', arguments: { amount: 5 }, callId: 'p1' }] },
    { text: 'Paid.' },
  ]);
  const ann = frontEnd(url('treasurer'), 'ann', threadId);
  const first = await ann.run('pay 5');
  expect(first.interrupts[0]).toMatchObject({ id: 'p1', metadata: { quorum: { needed: 2, approvedBy: [] } } });
  const bad = await ann.run(undefined, {
    resume: [{ interruptId: 'p1', status: 'resolved', payload: { approved: true, editedArgs: { amount: 'five' } } }],
  });
  expect(bad.error).toBe(
    'call p1 (approve_payout) needs 2 approvals of the same arguments: approve it as is, or reject it',
  );
  const once = await ann.run(undefined, {
    resume: [{ interruptId: 'p1', status: 'resolved', payload: { approved: true } }],
  });
  expect(once.interrupts[0]).toMatchObject({ id: 'p1', metadata: { quorum: { approvedBy: ['ann'] } } });
  expect(paid).toEqual([]);
  const bob = frontEnd(url('treasurer'), 'bob', threadId);
  const done = await bob.run(undefined, {
    resume: [{ interruptId: 'p1', status: 'resolved', payload: { approved: true } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Paid.' });
  expect(paid).toEqual([5]);
});

test('an input item is answered through resume, its values checked against the tool schema', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [
    { toolCalls: [{ name: 'book_meeting', arguments: { title: 'Standup' }, callId: 'b1' }] },
    { toolCalls: [{ name: 'book_meeting', arguments: { title: 'Retro' }, callId: 'b2' }] },
    { text: 'Both booked.' },
  ]);
  const ann = frontEnd(url('scheduler'), 'ann', threadId);
  const first = await ann.run('book the standup');
  expect(first.interrupts[0]).toMatchObject({ id: 'b1', reason: 'user_input', responseSchema: { required: ['time'] } });
  const wrong = await ann.run(undefined, {
    resume: [{ interruptId: 'b1', status: 'resolved', payload: { time: 'noon' } }],
  });
  expect(wrong.error).toMatch(/HH:MM/);
  const booked = await ann.run(undefined, {
    resume: [{ interruptId: 'b1', status: 'resolved', payload: { time: '09:30' } }],
  });
  expect(booked.events.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({
    toolCallId: 'b1',
    content: expect.stringContaining("Meeting 'Standup' booked at 09:30"),
  });
  expect(booked.interrupts.map((i) => i.id)).toEqual(['b2']);

  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'b2', status: 'resolved', payload: { time: '16:00' } }],
  });
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Both booked.' });
  const results = done.events.filter((e) => e.type === 'TOOL_CALL_RESULT');
  expect(results.map((e) => [e.toolCallId, String(e.content).split('\n').at(-1)])).toEqual([
    ['b2', "Meeting 'Retro' booked at 16:00"],
  ]);
});

test('bad requests: one line each, 4xx, nothing started', async () => {
  const post = (body: string, agent?: string, type = 'application/json') =>
    fetch(url(agent), { method: 'POST', headers: { 'content-type': type, 'X-Forwarded-User': 'ann' }, body });
  const threadId = randomUUID();
  const input = (content: string) =>
    JSON.stringify({ threadId, runId: 'r', messages: [{ id: 'u1', role: 'user', content }], tools: [], context: [] });
  const malformed = await post(JSON.stringify({ threadId, messages: 'hi' }));
  expect(malformed.status).toBe(400);
  expect(((await malformed.json()) as { error: string }).error).toMatch(/^invalid RunAgentInput: .*runId/);
  const unknown = await post(input('hi'), 'no-such-agent');
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { error: string }).error).toMatch(/no agent named "no-such-agent"/);
  expect((await post(input('hi'), undefined, 'text/plain')).status).toBe(415);
  expect((await post(input('x'.repeat(300 * 1024)))).status).toBe(413);
  const anonymous = await fetch(url(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: input('hi'),
  });
  expect(anonymous.status).toBe(401);
  expect(await anonymous.json()).toEqual({
    error: 'not signed in: send X-Forwarded-User, as the proxy on this host does',
  });
  expect((await fetch(`${url()}/threads/${threadId}`, { headers: { 'X-Forwarded-User': 'ann' } })).status).toBe(404);
  // A resume on a thread that waits for nothing: a RUN_ERROR in one line.
  const stray = await frontEnd(url(), 'ann', threadId).run(undefined, {
    resume: [{ interruptId: 'nope', status: 'cancelled' }],
  });
  expect(stray.error).toMatch(/interrupt nope is not open/);
  expect((await fetch(`${url()}/threads/${threadId}`, { headers: { 'X-Forwarded-User': 'ann' } })).status).toBe(404);
});

test('the capabilities document declares interrupts and approving with edits', async () => {
  const res = await fetch(`${url()}/capabilities`, { headers: { 'X-Forwarded-User': 'ann' } });
  expect(await res.json()).toMatchObject({
    humanInTheLoop: { interrupts: true, approveWithEdits: true },
    transport: { streaming: true },
    tools: { supported: true },
  });
});
