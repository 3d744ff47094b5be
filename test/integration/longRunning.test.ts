// Waits of days and weeks, checked in seconds on Temporal's time-skipping test server: approval timeouts under
// each onTimeout policy, reminders and escalation through the notify activity and a real webhook, the run deadline.
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import { decideUpdate, type RunInput } from '../../contract/messages';
import { type RunResult } from '../../contract/runViews';
import { addRunSearchAttributes, eventually, newId, outboxOf } from '../support/fixtures';
import { quietRuntime, startHarness, type Harness } from '../support/harness';
import { binaryPath } from '../support/toolchain';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

// Policies declared on the definitions: the tool's wins over the agent's.
const patientAgent = defineAgent({
  name: 'patient-assistant',
  instructions: 'test',
  approvalTimeout: '24h',
  onTimeout: 'reject',
  tools: [defineTool({ ...sendEmail, approvalTimeout: '1h', onTimeout: 'approve' }), deleteRecord],
  toolErrorFormatter: ({ kind, defaultMessage }) =>
    kind === 'approval_rejected' && defaultMessage.startsWith('The approval request expired')
      ? `Nobody answered in time (${defaultMessage})`
      : undefined,
});

// Expiry as its own outcome: 24h, extendable by 6h in all, a reminder 1h before each expiry.
const expiringAgent = defineAgent({
  name: 'expiring-assistant',
  instructions: 'test',
  tools: [defineTool({ ...sendEmail, approvalTimeout: '24h', maxExtension: '6h', remindBeforeExpiry: '1h' })],
});

let env: TestWorkflowEnvironment;
let h: Harness;
let hook: WebhookReceiver;
beforeAll(async () => {
  quietRuntime();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: binaryPath('temporal-test-server') } },
  });
  // The test server knows no custom search attributes until they are added, like any cluster.
  await addRunSearchAttributes(env.connection, 'default');
  hook = await startWebhookReceiver();
  h = await startHarness({
    env,
    webhookUrl: hook.url,
    registry: new AgentRegistry([...demoAgents, patientAgent, expiringAgent]),
  });
});
afterAll(async () => {
  await h?.close();
  await hook?.close();
  await env?.teardown();
});

async function start(input: RunInput, script?: Parameters<Harness['model']['script']>[1]): Promise<WorkflowHandle> {
  const workflowId = newId('long');
  if (script) h.model.script(workflowId, script);
  return h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId, args: [input] });
}

const sendTo = (to: string, callId: string) => ({
  name: 'send_email',
  arguments: { to, subject: 'Hello', body: 'b' },
  callId,
});
const notificationsFor = (workflowId: string) => hook.received.filter((n) => n.workflowId === workflowId);

test('a 7-day timeout with 3 reminders and an escalation; the model hears "The approval request expired after 7d."', async () => {
  const handle = await start(
    {
      agent: 'email-assistant',
      input: 'mail',
      approvalTimeout: '7d',
      remindEvery: '2d',
      escalateAfter: '5d',
      escalateTo: 'ops-oncall',
    },
    [{ toolCalls: [sendTo('a@example.com', 'c1')] }, { text: 'gave up' }],
  );
  const pending = await eventually(async () => {
    const p = await handle.query<Array<{ requestedAt: string; expiresAt?: string }>>('pendingApprovals');
    return p.length ? p : undefined;
  });
  expect(Date.parse(pending[0]!.expiresAt!) - Date.parse(pending[0]!.requestedAt)).toBe(7 * 24 * 3600 * 1000);

  const t0 = Date.now();
  const result = (await handle.result()) as RunResult; // the test server skips the week
  expect(Date.now() - t0).toBeLessThan(30_000);
  expect(result.finalOutput).toBe('gave up');
  expect(result.items).toContainEqual({
    type: 'function_call_output',
    callId: 'c1',
    output: 'The approval request expired after 7d.',
  });
  expect(result.audit).toEqual([
    expect.objectContaining({ callId: 'c1', decision: 'expired', onTimeout: 'reject', via: 'timer' }),
  ]);
  expect(await outboxOf(h.outbox)).toEqual([]);

  const events = notificationsFor(handle.workflowId);
  expect(events.map((n) => n.event).sort()).toEqual([
    'approval_decided',
    'approval_escalated',
    'approval_reminder',
    'approval_reminder',
    'approval_reminder',
    'approval_requested',
    'approval_timed_out',
  ]);
  expect(
    events
      .filter((n) => n.event === 'approval_reminder')
      .map((n) => n.reminder)
      .sort(),
  ).toEqual([1, 2, 3]);
  expect(events.find((n) => n.event === 'approval_escalated')).toMatchObject({
    escalateTo: 'ops-oncall',
    toolName: 'send_email',
    callId: 'c1',
  });
});

test('onTimeout approve: the call runs when time is up (tool policy 1h beats the agent 24h)', async () => {
  const handle = await start({ agent: 'patient-assistant', input: 'mail' }, [
    { toolCalls: [sendTo('b@example.com', 'c2')] },
    { text: 'sent' },
  ]);
  const pending = await eventually(async () => {
    const p = await handle.query<Array<{ requestedAt: string; expiresAt?: string }>>('pendingApprovals');
    return p.length ? p : undefined;
  });
  expect(Date.parse(pending[0]!.expiresAt!) - Date.parse(pending[0]!.requestedAt)).toBe(3600 * 1000);
  const result = (await handle.result()) as RunResult;
  expect(result.finalOutput).toBe('sent');
  expect(result.audit).toEqual([expect.objectContaining({ decision: 'timed_out', onTimeout: 'approve' })]);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey === `${handle.workflowId}:c2`)).toHaveLength(1);
});

test("the agent's policy (24h, reject) applies where the tool has none, and a formatter rewrites the timeout text", async () => {
  const handle = await start({ agent: 'patient-assistant', input: 'rm' }, [
    { toolCalls: [{ name: 'delete_record', arguments: { record_id: 'R9' }, callId: 'd1' }] },
    { text: 'ok' },
  ]);
  const result = (await handle.result()) as RunResult;
  expect(result.items).toContainEqual({
    type: 'function_call_output',
    callId: 'd1',
    output: 'Nobody answered in time (The approval request expired after 24h.)',
  });
  expect(Date.parse(result.audit[0]!.decidedAt) - Date.parse(result.audit[0]!.requestedAt!)).toBeGreaterThanOrEqual(
    24 * 3600 * 1000,
  );
});

test('onTimeout fail: the run fails with ApprovalTimedOut and the tool never runs', async () => {
  const handle = await start({ agent: 'email-assistant', input: 'mail', approvalTimeout: '2d', onTimeout: 'fail' }, [
    { toolCalls: [sendTo('c@example.com', 'c3')] },
  ]);
  const err = await handle.result().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause.type).toBe('ApprovalTimedOut');
  expect(cause.message).toBe('approval of send_email (call c3) timed out after 2d');
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${handle.workflowId}:`))).toHaveLength(
    0,
  );
});

test('a decision before the timeout wins, and no timeout fires afterwards', async () => {
  const handle = await start({ agent: 'email-assistant', input: 'mail', approvalTimeout: '1d', remindEvery: '6h' }, [
    { toolCalls: [sendTo('d@example.com', 'c4')] },
    { text: 'done' },
  ]);
  await eventually(async () => ((await handle.query<unknown[]>('pendingApprovals')).length ? true : undefined));
  await env.sleep('7h'); // one reminder goes out
  await handle.signal('approve', { callId: 'c4', approver: 'ann' });
  const result = (await handle.result()) as RunResult;
  expect(result.audit.map((a) => a.decision)).toEqual(['approved']);
  expect(
    notificationsFor(handle.workflowId)
      .map((n) => n.event)
      .sort(),
  ).toEqual(['approval_decided', 'approval_reminder', 'approval_requested']);
});

test('runTimeout: a run still waiting at its deadline fails with RunTimedOut', async () => {
  const handle = await start({ agent: 'email-assistant', input: 'mail', runTimeout: '3d' }, [
    { toolCalls: [sendTo('e@example.com', 'c5')] },
  ]);
  const err = await handle.result().catch((e: unknown) => e);
  expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('RunTimedOut');
  expect((err as WorkflowFailedError).cause!.message).toBe('the run passed its deadline (runTimeout 3d)');
});

test('a failing webhook is retried and never blocks the run', async () => {
  hook.failNext = 2;
  const handle = await start({ agent: 'email-assistant', input: 'mail' }, [
    { toolCalls: [sendTo('f@example.com', 'c6')] },
    { text: 'fine' },
  ]);
  await eventually(async () => ((await handle.query<unknown[]>('pendingApprovals')).length ? true : undefined));
  await handle.signal('approve', { callId: 'c6' });
  expect(((await handle.result()) as RunResult).finalOutput).toBe('fine');
  expect(
    notificationsFor(handle.workflowId)
      .map((n) => n.event)
      .sort(),
  ).toEqual(['approval_decided', 'approval_requested']);
  expect(hook.failNext).toBe(0);
});

test('expiry: an extension within maxExtension moves it, one past it is refused, a reminder comes before each expiry, and the call is audited expired', async () => {
  const handle = await start({ agent: 'expiring-assistant', input: 'mail' }, [
    { toolCalls: [sendTo('g@example.com', 'c7')] },
    { text: 'too late' },
  ]);
  const [pending] = await eventually(async () => {
    const p = await handle.query<Array<{ requestedAt: string; expiresAt?: string }>>('pendingApprovals');
    return p.length ? p : undefined;
  });
  await env.sleep(23.5 * 3600_000); // past the first reminder (1h before 24h)
  const extended = await handle.executeUpdate(decideUpdate, {
    args: [{ decisions: [{ callId: 'c7', decision: 'extend', by: '4h', approver: 'ann' }] }],
  });
  expect(extended.applied).toEqual([
    {
      callId: 'c7',
      toolName: 'send_email',
      outcome: 'extended',
      approver: 'ann',
      expiresAt: new Date(Date.parse(pending!.expiresAt!) + 4 * 3600_000).toISOString(),
    },
  ]);
  const refused = await handle
    .executeUpdate(decideUpdate, { args: [{ decisions: [{ callId: 'c7', decision: 'extend', by: '3h' }] }] })
    .catch((e: unknown) => e);
  expect(String((refused as Error).cause ?? refused)).toMatch(
    /call c7 \(send_email\) may be extended by 2h more at most \(maxExtension 6h\), not 3h/,
  );
  const result = (await handle.result()) as RunResult;
  expect(result.items).toContainEqual({
    type: 'function_call_output',
    callId: 'c7',
    output: 'The approval request expired after 24h and an extension of 4h.',
  });
  expect(result.audit.map((a) => [a.decision, a.extendedBy ?? a.onTimeout])).toEqual([
    ['extended', '4h'],
    ['expired', 'reject'],
  ]);
  expect(Date.parse(result.audit[1]!.decidedAt) - Date.parse(pending!.requestedAt)).toBeGreaterThanOrEqual(
    28 * 3600_000,
  );
  const events = notificationsFor(handle.workflowId);
  expect(events.filter((n) => n.event === 'approval_expiring').map((n) => n.expiresAt)).toEqual([
    pending!.expiresAt,
    extended.applied[0]!.expiresAt,
  ]);
  expect(events.filter((n) => n.event === 'approval_decided').map((n) => n.outcome)).toEqual(['extended', 'expired']);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${handle.workflowId}:`))).toEqual([]);
});
