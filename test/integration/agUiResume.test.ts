// AG-UI resumes of every kind of pause, through @ag-ui/client's HttpAgent on the inbox's routes, against a real dev
// server and the scripted model, every event checked against @ag-ui/core's schemas: an external result, a tripped
// guardrail, a call that needs a signed decision (metadata.signature), a call decided meanwhile (already decided) or
// whose target changed since the interrupt was shown (stale): each refusal one line with nothing changed. The thread's
// starter is the run's requestedBy, so excludeRequester keeps them from approving its calls. An oversized message
// is a 413 in one line.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { type FrontEnd, frontEnd } from '../support/agUiClient';
import { cliEnv, countersignExit } from '../support/countersignCli';
import { outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { approver, approverKeysOf, token } from '../support/signedVault';

jest.setTimeout(180_000);

const annKey = approver('ann');
const balances = new Map<string, number>();
const ran: string[] = [];
const desk = defineAgent({
  name: 'desk',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'charge_card',
      description: 'Charge a card',
      parameters: z.object({ amount: z.number() }),
      external: true,
    }),
    defineTool({
      name: 'wire_money',
      description: 'Send money',
      parameters: z.object({ to: z.string(), amount: z.number() }),
      needsApproval: true,
      signedDecisions: true,
      execute: ({ to, amount }) => (ran.push(`wire ${to} ${amount}`), `wired ${amount} to ${to}`),
    }),
    defineTool({
      name: 'transfer',
      description: 'Transfer money',
      parameters: z.object({ account: z.string(), amount: z.number() }),
      needsApproval: true,
      fingerprint: ({ account }) => `balance ${balances.get(account) ?? 0}`,
      execute: ({ account, amount }) => (ran.push(`transfer ${account} ${amount}`), `sent ${amount}`),
    }),
    defineTool({
      name: 'refund',
      description: 'Refund an order',
      parameters: z.object({ order: z.string() }),
      needsApproval: true,
      excludeRequester: true,
      execute: ({ order }) => (ran.push(`refund ${order}`), `refunded ${order}`),
    }),
  ],
});
const guarded = defineAgent({
  name: 'guarded-desk',
  instructions: 'test',
  tools: [],
  inputGuardrails: [
    {
      name: 'no_passwords',
      onTripwire: 'ask',
      execute: ({ input }: { input: string }) => ({ tripwireTriggered: /password/i.test(input) }),
    },
  ],
});

let h: Harness;
let runner: Runner;
let inbox: { url: string; close(): Promise<void> };
beforeAll(async () => {
  h = await startHarness({
    registry: new AgentRegistry([...demoAgents, desk, guarded]),
    approverKeys: approverKeysOf([annKey]),
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
});
afterAll(async () => {
  await inbox?.close();
  await h?.close();
});

beforeEach(() => (ran.length = 0));

const url = (agent = 'desk') => `${inbox.url}/ag-ui/${agent}`;
const resolved = (interruptId: string, payload: unknown, metadata?: Record<string, unknown>) => ({
  resume: [{ interruptId, status: 'resolved' as const, payload, ...(metadata ? { metadata } : {}) }],
});
const call = (name: string, args: Record<string, unknown>, callId: string) => ({
  toolCalls: [{ name, arguments: args, callId }],
});
/** What a front end does when it reloads: the thread's open interrupts replace those it held. */
const reload = async (fe: FrontEnd) => {
  const res = await fetch(`${fe.agent.url}/threads/${fe.agent.threadId}`, { headers: fe.agent.headers });
  fe.agent.pendingInterrupts = (
    (await res.json()) as { interrupts: FrontEnd['agent']['pendingInterrupts'] }
  ).interrupts;
};
const decisionsOf = async (workflowId: string) =>
  (await runner.audit(workflowId)).map((a) => [a.callId, a.decision, a.approver ?? '-']);

test('an external result through resume: the worker never runs the tool, the result is its output', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [call('charge_card', { amount: 12 }, 'x1'), { text: 'Charged.' }]);
  const ann = frontEnd(url(), 'ann', threadId);
  const first = await ann.run('charge 12');
  expect(first.interrupts).toEqual([
    expect.objectContaining({
      id: 'x1',
      reason: 'external_result',
      toolCallId: 'x1',
      responseSchema: { type: 'object', properties: { result: { type: 'string' }, error: { type: 'string' } } },
    }),
  ]);
  const empty = await ann.run(undefined, resolved('x1', {}));
  expect(empty.error).toBe('interrupt x1: the payload needs a result or an error');
  const done = await ann.run(undefined, resolved('x1', { result: { status: 'charged', id: 'ch_1' } }));
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Charged.' });
  expect(done.events.filter((e) => e.type === 'TOOL_CALL_RESULT')).toEqual([
    expect.objectContaining({ toolCallId: 'x1', content: '{"status":"charged","id":"ch_1"}' }),
  ]);
  expect(await decisionsOf(`session-${threadId}-1`)).toEqual([['x1', 'result_provided', 'ann']]);
});

test('a tripped input guardrail is an interrupt of its own (no tool call): approved, the run goes on as if it passed', async () => {
  const threadId = randomUUID();
  h.model.script(`session-${threadId}-1`, [{ text: 'I will not repeat it.' }]);
  const ann = frontEnd(url('guarded-desk'), 'ann', threadId);
  const first = await ann.run('my password is hunter2');
  expect(first.interrupts).toHaveLength(1);
  const [asked] = first.interrupts;
  expect(asked).toMatchObject({ id: 'guardrail_no_passwords_1', reason: 'guardrail', metadata: { kind: 'guardrail' } });
  expect(asked).not.toHaveProperty('toolCallId');
  expect(first.types).not.toContain('TOOL_CALL_START');
  const edited = await ann.run(undefined, resolved(asked!.id, { approved: true, editedArgs: { input: 'x' } }));
  expect(edited.error).toMatch(/is a tripped guardrail, not a tool call: it has no arguments to edit/);
  expect(await decisionsOf(`session-${threadId}-1`)).toEqual([]);
  const done = await ann.run(undefined, resolved(asked!.id, { approved: true }));
  expect(done.last).toMatchObject({ outcome: { type: 'success' }, result: 'I will not repeat it.' });
  expect(await decisionsOf(`session-${threadId}-1`)).toEqual([['guardrail_no_passwords_1', 'approved', 'ann']]);
});

test('a call that needs a signed decision: refused without metadata.signature, approved once with a token', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [call('wire_money', { to: 'acme', amount: 100 }, 'w1'), { text: 'Wired.' }]);
  const bob = frontEnd(url(), 'bob', threadId);
  const first = await bob.run('wire acme 100');
  const [asked] = first.interrupts;
  expect(asked).toMatchObject({ id: 'w1', metadata: { signedDecisions: true } });
  const unsigned = await bob.run(undefined, resolved('w1', { approved: true }));
  expect(unsigned.error).toBe(
    'call w1 (wire_money) needs a signed decision and this server holds no key for bob: sign it yourself with countersign approve --key <file>',
  );
  const forged = token(annKey, { wf: workflowId, call: 'w1', arguments: '{"to":"mallory","amount":100}' });
  const refused = await bob.run(undefined, resolved('w1', { approved: true }, { signature: forged }));
  expect(refused.error).toMatch(/^[^\n]*decision for call w1 refused: [^\n]*$/);
  expect([ran, await decisionsOf(workflowId)]).toEqual([[], []]);
  // The token signs the arguments exactly as the interrupt shows them.
  const signature = token(annKey, { wf: workflowId, call: 'w1', arguments: String(asked!.metadata!.arguments) });
  const done = await bob.run(undefined, resolved('w1', { approved: true }, { signature }));
  expect(done.last).toMatchObject({ outcome: { type: 'success' }, result: 'Wired.' });
  expect(ran).toEqual(['wire acme 100']);
  expect(await runner.audit(workflowId)).toEqual([
    expect.objectContaining({ callId: 'w1', decision: 'approved', approver: 'ann', verified: true }),
  ]);
});

test('a resume of a call decided meanwhile (already decided) or whose target changed since it was shown (stale): refused, nothing changes', async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  balances.set('acct-1', 120);
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'transfer', arguments: { account: 'acct-1', amount: 100 }, callId: 't1' },
        { name: 'refund', arguments: { order: 'o-7' }, callId: 'r1' },
      ],
    },
    { text: 'Done.' },
  ]);
  const ann = frontEnd(url(), 'ann', threadId);
  const bob = frontEnd(url(), 'bob', threadId);
  const [first] = [await ann.run('pay and refund'), await bob.run()];
  expect(first.interrupts.map((i) => [i.id, i.metadata?.fingerprint])).toEqual([
    ['t1', 'balance 120'],
    ['r1', undefined],
  ]);

  // The CLI refunds while both tabs show the call; bob's tab answers it anyway.
  const cli = await countersignExit(
    ['approve', workflowId, 'r1', '--as', 'cy'],
    cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }),
  );
  expect(cli.code).toBe(0);
  const late = await bob.run(undefined, {
    resume: [
      { interruptId: 't1', status: 'resolved', payload: { approved: true } },
      { interruptId: 'r1', status: 'resolved', payload: { approved: false, message: 'no refund' } },
    ],
  });
  expect(late.error).toMatch(/^[^\n]*\br1\b[^\n]*$/);
  expect(await decisionsOf(workflowId)).toEqual([['r1', 'approved', 'cy']]); // t1 neither: the batch is refused whole
  // A front end that reloads holds only what is still open: a resume naming anything else is refused.
  await reload(bob);
  expect(bob.agent.pendingInterrupts.map((i) => i.id)).toEqual(['t1']);
  const unknown = await bob.run(undefined, {
    resume: [
      { interruptId: 't1', status: 'resolved', payload: { approved: true } },
      { interruptId: 'zz', status: 'resolved', payload: { approved: true } },
    ],
  });
  expect(unknown.error).toMatch(/^interrupt zz is not open on this thread/);
  expect(await decisionsOf(workflowId)).toEqual([['r1', 'approved', 'cy']]);
  await reload(ann);

  // Money moves before t1 runs: ann's approval finds it stale, and the call is asked again on what it acts on now.
  balances.set('acct-1', 40);
  const again = await ann.run(undefined, resolved('t1', { approved: true }, { fingerprint: 'balance 120' }));
  expect(again.interrupts).toEqual([
    expect.objectContaining({
      id: 't1',
      metadata: expect.objectContaining({
        fingerprint: 'balance 40',
        stale: { was: 'balance 120', now: 'balance 40' },
      }),
    }),
  ]);
  // Bob's tab still shows the old state: its approval is refused in one line, and nothing runs.
  const stale = await bob.run(undefined, resolved('t1', { approved: true }, { fingerprint: 'balance 120' }));
  expect(stale.error).toMatch(
    /^[^\n]*what call t1 \(transfer\) acts on changed since this decision was made \(fingerprint "balance 40" now\)[^\n]*$/,
  );
  expect(ran).toEqual(['refund o-7']);
  expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['t1']);
  const done = await ann.run(undefined, resolved('t1', { approved: true }, { fingerprint: 'balance 40' }));
  expect(done.last).toMatchObject({ outcome: { type: 'success' }, result: 'Done.' });
  expect(ran).toEqual(['refund o-7', 'transfer acct-1 100']);
});

test("the thread's starter is the run's requestedBy: excludeRequester keeps them from approving its calls", async () => {
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  h.model.script(workflowId, [call('refund', { order: 'o-9' }, 'r9'), { text: 'Refunded.' }]);
  const cy = frontEnd(url(), 'cy', threadId);
  const first = await cy.run('refund o-9');
  expect(first.interrupts[0]).toMatchObject({ id: 'r9', metadata: { excludedApprover: 'cy' } });
  const own = await cy.run(undefined, resolved('r9', { approved: true }));
  expect(own.error).toMatch(
    /^[^\n]*cy requested this run and may not approve its own call r9 \(refund\): another approver must$/,
  );
  expect([ran, await decisionsOf(workflowId)]).toEqual([[], []]);
  const done = await frontEnd(url(), 'dan', threadId).run(undefined, resolved('r9', { approved: true }));
  expect(done.last).toMatchObject({ outcome: { type: 'success' }, result: 'Refunded.' });
  expect(await decisionsOf(workflowId)).toEqual([['r9', 'approved', 'dan']]);
  expect(ran).toEqual(['refund o-9']);
});

test('an oversized message is refused in one line and starts nothing', async () => {
  const threadId = randomUUID();
  const big = await frontEnd(url('email-assistant'), 'ann', threadId).run('x'.repeat(300 * 1024));
  expect(big.error).toBe('HTTP 413: {"error":"the request is too large"}');
  const thread = await fetch(`${url('email-assistant')}/threads/${threadId}`, {
    headers: { 'X-Forwarded-User': 'ann' },
  });
  expect(thread.status).toBe(404);
  expect(await outboxOf(h.outbox)).toEqual([]);
});
