// Runs write the approvals ledger (workflows/ledgerWriter.ts → activity recordLedger → the worker's SQLite ledger in a
// temporary folder), against the real dev server: approved, rejected, a quorum of two, an expiry, a run that
// continues as new several times, an audit-only call and its review. Each entry is in the ledger exactly once, with
// seq 1..n in its run's chain, which verifies; the derived per-call rows say how each call ended. A decision never
// waits for the ledger: with the ledger's file locked, decisions still return and the run goes on; the writes land
// once it is free. And what the ledger costs a run in history events, per approval.
import { DatabaseSync } from 'node:sqlite';
import { temporal } from '@temporalio/proto';
import { Runner, reviewCall } from '../../client';
import { runStateQuery } from '../../contract/messages';
import type { AuditEntry } from '../../contract/runViews';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { budget, ledgerRegistry, refund, tempLedgerFile } from '../support/ledgerShop';

jest.setTimeout(300_000);

const email = (n: number) => ({
  name: 'send_email',
  arguments: { to: `u${n}@example.com`, subject: `S${n}`, body: 'b' },
  callId: `m${n}`,
});

const file = tempLedgerFile();
const { EventType } = temporal.api.enums.v1;
const WORKFLOW_TASK = new Set([
  EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
]);
/** What the ledger adds to a one-approval run, workflow tasks aside: the waiting call's recordLedger (scheduled, started, completed); the decision rides runTool. */
const LEDGER_EVENTS = 3;
let h: Harness;
let runner: Runner;
let store: LedgerStore;
beforeAll(async () => {
  h = await startHarness({ registry: ledgerRegistry(), ledgerUrl: file });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  store = (await openLedger(file))!;
});
afterAll(async () => {
  await h?.close();
  await store?.close();
});

/** Starts a run on the ledger's worker; its chain id is its first execution's run id. */
async function start(id: string, input: Record<string, unknown>): Promise<string> {
  const handle = await h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: id, args: [input] });
  return handle.firstExecutionRunId;
}

const untilPending = (id: string, count: number) =>
  eventually(async () =>
    (await h.client.workflow.getHandle(id).query(runStateQuery)).pending.length === count ? true : undefined,
  );

/** The run's whole audit (every continuation's), oldest first. */
async function auditOf(id: string): Promise<AuditEntry[]> {
  const audit: AuditEntry[] = [];
  for await (const e of runner.auditLog(id)) audit.push(e);
  return audit;
}

/**
 * The run's chain once it holds every audit entry but refusals: each seq once, 1..n, the entries the audit has
 * (without their arguments), and every chain of the ledger verifies.
 */
async function expectChain(id: string, chainId: string): Promise<AuditEntry[]> {
  const audit = (await auditOf(id)).filter((e) => e.decision !== 'ignored');
  const chain = await eventually(async () => {
    const rows = await store.chain({ workflowId: id, chainId });
    return rows.length >= audit.length ? rows : undefined;
  });
  expect(chain.map((r) => r.seq)).toEqual(audit.map((_, i) => i + 1));
  expect(chain.map((r) => r.seq)).toEqual(audit.map((e) => e.seq));
  for (const [i, row] of chain.entries()) {
    const { arguments: _a, editedArguments: _e, ...kept } = audit[i]!;
    expect(row.entry).toMatchObject(kept);
    expect(JSON.stringify(row.entry)).not.toContain('example.com'); // digests, not arguments
  }
  expect((await store.verify({})).problems).toEqual([]);
  return audit;
}

const recordsOf = async (workflowId: string) =>
  Object.fromEntries((await store.approvals({ workflowId })).records.map((r) => [r.callId, r]));

test('approved, rejected and a quorum of two: each entry once in the run chain, the calls as they ended', async () => {
  const id = newId('ledger-decided');
  h.model.script(id, [{ toolCalls: [email(1), email(2), budget(9, 'q1')] }, { text: 'done' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go' });
  await untilPending(id, 3);
  // The pending calls reach the ledger before any decision.
  await eventually(async () => ((await store.approvals({ workflowId: id })).records.length === 3 ? true : undefined));
  expect(Object.values(await recordsOf(id)).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
  await runner.decide(id, [
    { callId: 'm1', decision: 'approve', approver: 'ann' },
    { callId: 'm2', decision: 'reject', approver: 'ann', message: 'no' },
    { callId: 'q1', decision: 'approve', approver: 'ann' },
  ]);
  await runner.decide(id, [{ callId: 'q1', decision: 'approve', approver: 'bob' }]);
  await h.client.workflow.getHandle(id).result();
  const audit = await expectChain(id, chainId);
  expect(audit.map((e) => `${e.callId}:${e.decision}`)).toEqual([
    'm1:approved',
    'm2:rejected',
    'q1:approval_counted',
    'q1:approved',
  ]);
  const records = await recordsOf(id);
  expect(records.m1).toMatchObject({ status: 'approved', approvers: ['ann'], toolName: 'send_email' });
  expect(records.m2).toMatchObject({ status: 'rejected' });
  expect(records.q1).toMatchObject({ status: 'approved', approvers: ['ann', 'bob'], toolName: 'grant_budget' });
});

test('an expiry is written, and the run ends with nothing left pending in the ledger', async () => {
  const id = newId('ledger-expired');
  h.model.script(id, [{ toolCalls: [email(1)] }, { text: 'gave up' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go', approvalTimeout: '2s', onTimeout: 'reject' });
  await h.client.workflow.getHandle(id).result();
  const audit = await expectChain(id, chainId);
  expect(audit.map((e) => e.decision)).toEqual(['expired']);
  expect((await recordsOf(id)).m1).toMatchObject({ status: 'expired' });
});

test('a run that continues as new keeps one chain: every entry once, seq 1..n across the continuations', async () => {
  const id = newId('ledger-can');
  h.model.script(id, [{ toolCalls: [email(1), email(2)] }, { toolCalls: [email(3), email(4)] }, { text: 'done' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go', continueAsNewAfterEvents: 12 });
  await untilPending(id, 2);
  await runner.decide(id, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
  await runner.decide(id, [{ callId: 'm2', decision: 'reject', approver: 'bob' }]);
  await untilPending(id, 2);
  await runner.decide(id, [{ callId: 'm3', decision: 'approve', approver: 'ann' }]);
  await runner.decide(id, [{ callId: 'm4', decision: 'approve', approver: 'cy' }]);
  await h.client.workflow.getHandle(id).result();
  // It did continue as new, more than once (visibility lags: asked until it lists them).
  await eventually(async () => {
    let runs = 0;
    for await (const _ of h.client.workflow.list({ query: `WorkflowId = '${id}'` })) runs += 1;
    return runs > 2 ? true : undefined;
  });
  const audit = await expectChain(id, chainId);
  expect(audit).toHaveLength(4);
  const records = await recordsOf(id);
  expect(Object.keys(records).sort()).toEqual(['m1', 'm2', 'm3', 'm4']);
  expect(records.m4).toMatchObject({ status: 'approved', approvers: ['cy'] });
});

test('an audit-only call is written as unreviewed, and its review (by the reviews workflow) marks it', async () => {
  const id = newId('ledger-audited');
  const reviewsId = newId('ledger-reviews');
  h.model.script(id, [{ toolCalls: [refund(700, 'r1')] }, { text: 'done' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go' });
  await h.client.workflow.getHandle(id).result();
  expect((await expectChain(id, chainId)).map((e) => e.decision)).toEqual(['audited']);
  expect((await recordsOf(id)).r1).toMatchObject({ status: 'unreviewed' });
  try {
    await reviewCall(
      h.client,
      h.taskQueue,
      { workflowId: id, callId: 'r1', verdict: 'flagged', note: 'too large', reviewer: 'ann' },
      { workflowId: reviewsId },
    );
    const flagged = await eventually(async () => {
      const r = (await recordsOf(id)).r1;
      return r?.status === 'flagged' ? r : undefined;
    });
    expect(flagged).toMatchObject({ approvers: ['ann'], note: 'too large' });
    expect((await store.verify({})).problems).toEqual([]);
  } finally {
    await h.client.workflow
      .getHandle(reviewsId)
      .terminate('test over')
      .catch(() => undefined);
  }
});

test('a cancelled run: its waiting call is written cancelled, and the ledger shows nothing pending', async () => {
  const id = newId('ledger-cancelled');
  h.model.script(id, [{ toolCalls: [email(1)] }, { text: 'never' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go' });
  await untilPending(id, 1);
  await eventually(async () => ((await recordsOf(id)).m1?.status === 'pending' ? true : undefined));
  const handle = h.client.workflow.getHandle(id);
  await handle.cancel();
  await handle.result().catch(() => undefined);
  expect((await expectChain(id, chainId)).map((e) => e.decision)).toEqual(['cancelled']);
  expect((await recordsOf(id)).m1).toMatchObject({ status: 'cancelled' });
});

test('the reviews workflow numbers its reviews in one chain across continue-as-new', async () => {
  const id = newId('ledger-refunds');
  const reviewsId = newId('ledger-reviews-can');
  const calls = [1, 2, 3, 4].map((n) => refund(100 * n, `r${n}`));
  h.model.script(id, [{ toolCalls: calls }, { text: 'done' }]);
  await start(id, { agent: 'ledger-shop', input: 'go' });
  await h.client.workflow.getHandle(id).result();
  const reviews = await h.client.workflow.start('countersignReviews', {
    taskQueue: h.taskQueue,
    workflowId: reviewsId,
    args: [{ continueAsNewAfterEvents: 10 }],
  });
  try {
    for (const c of calls)
      await reviewCall(
        h.client,
        h.taskQueue,
        { workflowId: id, callId: c.callId, verdict: 'reviewed', reviewer: 'ann' },
        { workflowId: reviewsId },
      );
    const chain = await eventually(async () => {
      const rows = await store.chain({ workflowId: reviewsId, chainId: reviews.firstExecutionRunId });
      return rows.length >= 4 ? rows : undefined;
    });
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(chain.map((r) => (r.entry as { callId: string }).callId)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect((await reviews.describe()).runId).not.toBe(reviews.firstExecutionRunId); // it did continue as new
    const records = await eventually(async () => {
      const all = Object.values(await recordsOf(id));
      return all.every((r) => r.status === 'reviewed') ? all : undefined;
    });
    expect(records).toHaveLength(4);
    expect((await store.verify({})).problems).toEqual([]);
  } finally {
    await reviews.terminate('test over').catch(() => undefined);
  }
});

test('a decision does not wait for the ledger: with its file locked, decisions return and the run goes on', async () => {
  const id = newId('ledger-locked');
  h.model.script(id, [{ toolCalls: [email(1)] }, { toolCalls: [email(2)] }, { text: 'done' }]);
  const chainId = await start(id, { agent: 'ledger-shop', input: 'go' });
  await untilPending(id, 1);
  await eventually(async () => ((await recordsOf(id)).m1 ? true : undefined)); // the pending write landed
  const lock = new DatabaseSync(file);
  lock.exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE'); // holds the write lock: every write waits or fails
  let unlocked = false;
  try {
    const t0 = Date.now();
    await runner.decide(id, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
    await untilPending(id, 1); // the run went on: m1 ran, the model answered, m2 waits
    await runner.decide(id, [{ callId: 'm2', decision: 'approve', approver: 'bob' }]);
    const elapsed = Date.now() - t0;
    expect((await recordsOf(id)).m1?.status).toBe('pending'); // nothing written while locked
    lock.exec('ROLLBACK');
    unlocked = true;
    expect(elapsed).toBeLessThan(30_000);
  } finally {
    if (!unlocked) lock.exec('ROLLBACK');
    lock.close();
  }
  await h.client.workflow.getHandle(id).result();
  await expectChain(id, chainId);
  expect(Object.values(await recordsOf(id)).map((r) => r.status)).toEqual(['approved', 'approved']);
});

test('history events the ledger costs a run, per approval', async () => {
  const plain = await startHarness({ registry: ledgerRegistry() });
  try {
    const lengths: number[] = [];
    for (const on of [h, plain]) {
      const id = newId('ledger-cost');
      on.model.script(id, [{ toolCalls: [email(1)] }, { text: 'done' }]);
      await on.client.workflow.start('agentRun', {
        taskQueue: on.taskQueue,
        workflowId: id,
        args: [{ agent: 'ledger-shop', input: 'go' }],
      });
      const r = new Runner(on.client, { taskQueue: on.taskQueue });
      await eventually(async () => ((await r.pending(id)).length === 1 ? true : undefined));
      await r.decide(id, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
      const handle = on.client.workflow.getHandle(id);
      await handle.result();
      const { events } = await handle.fetchHistory();
      // Workflow tasks left out: how many the server makes depends on timing (a decision landing mid-task), not on the ledger.
      lengths.push(events!.filter((e) => !WORKFLOW_TASK.has(e.eventType!)).length);
      if (on === h)
        expect(
          events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordLedger'),
        ).toHaveLength(1); // the call waiting (its decision rides the tool's activity)
    }
    const [withLedger, without] = lengths as [number, number];
    console.log(`one approved call: ${withLedger} events with the ledger, ${without} without (workflow tasks aside)`);
    expect(withLedger - without).toBe(LEDGER_EVENTS);
  } finally {
    await plain.close();
  }
});
