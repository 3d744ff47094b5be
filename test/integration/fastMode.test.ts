// Fast mode (COUNTERSIGN_FAST_MODE): model calls as local activities. The seed run behaves as in the default mode
// (the approved tool runs once, the rejected one never), its history has no modelTurn activity events, a model
// error is retried as documented. (The choice is recorded in the run's agent snapshot: test/histories/fast-mode.json
// replays.)
import { temporal } from '@temporalio/proto';
import { Runner } from '../../client';
import { newId, outboxOf, scheduledActivities } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);

let fast: Harness;
let plain: Harness;
beforeAll(async () => {
  [fast, plain] = await Promise.all([startHarness({ fastMode: true }), startHarness()]);
});
afterAll(async () => Promise.all([fast?.close(), plain?.close()]));

const { EventType } = temporal.api.enums.v1;
const SEED = 'Send the report to alice and delete the draft record DR-42';
const eventTypes = async (h: Harness, workflowId: string) =>
  ((await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).map((e) => e.eventType);
const scheduledModelTurns = async (h: Harness, workflowId: string) =>
  (await scheduledActivities(h.client.workflow.getHandle(workflowId))).filter((a) => a === 'modelTurn').length;

async function seedRun(h: Harness): Promise<{ workflowId: string; finalOutput?: string }> {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const paused = await runner.run('email-assistant', SEED, { workflowId: newId('fast') });
  expect(paused.interruptions.map((i) => i.toolName)).toEqual(['send_email', 'delete_record']);
  const state = paused.toState();
  for (const i of paused.interruptions) {
    if (i.toolName === 'send_email') state.approve(i, { approver: 'ann' });
    else state.reject(i, { message: 'Keep it.' });
  }
  const done = await runner.run('email-assistant', state);
  expect(done.status).toBe('Completed');
  return { workflowId: paused.workflowId, finalOutput: done.finalOutput };
}

test('the seed run in fast mode: same outcome, model calls as local activity markers, fewer events', async () => {
  const f = await seedRun(fast);
  const p = await seedRun(plain);
  expect(f.finalOutput).toBe(p.finalOutput);
  expect(f.finalOutput).toContain('send_email: Email sent to alice@example.com');
  // The approved email went out once, the rejected delete never ran (the demo tools write to the outbox named last).
  const sent = [...(await outboxOf(fast.outbox)), ...(await outboxOf(plain.outbox))].filter((e) =>
    e.idempotencyKey?.startsWith(`${f.workflowId}:`),
  );
  expect(sent.map((e) => e.kind)).toEqual(['email']);

  expect(await scheduledModelTurns(fast, f.workflowId)).toBe(0);
  expect(await scheduledModelTurns(plain, p.workflowId)).toBe(2);
  const fastEvents = await eventTypes(fast, f.workflowId);
  const plainEvents = await eventTypes(plain, p.workflowId);
  // Two model calls: each a marker instead of scheduled/started/completed (and, most often, the workflow task after
  // it: how many workflow tasks a run takes also depends on when the client's updates arrive).
  expect(fastEvents.filter((t) => t === EventType.EVENT_TYPE_MARKER_RECORDED).length).toBe(
    plainEvents.filter((t) => t === EventType.EVENT_TYPE_MARKER_RECORDED).length + 2,
  );
  expect(fastEvents.length).toBeLessThanOrEqual(plainEvents.length - 2 * (3 - 1)); // per call: 3 activity events out, 1 marker in
});

test('a model error in fast mode is retried (the local activity retries as the activity would), once', async () => {
  const runner = new Runner(fast.client, { taskQueue: fast.taskQueue });
  const workflowId = newId('fast-retry');
  fast.model.script(workflowId, [{ error: { status: 503, message: 'overloaded' } }, { text: 'Hello after a retry.' }]);
  const result = await runner.run('email-assistant', 'Say hello', { workflowId });
  expect(result.finalOutput).toBe('Hello after a retry.');
  expect(fast.model.requests.filter((r) => r.runId === workflowId)).toHaveLength(2);
});
