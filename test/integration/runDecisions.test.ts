// Decisions beyond the seed examples, as a run takes them: sticky always-rules across turns, calls that never reach a
// person, maxTurns, and the agent snapshot in history. The raw signals, the validating update and the bad input the
// client must refuse are in decisionMessages.test.ts.
import type { Runner } from '../../client';
import { SNAPSHOT_REVISION } from '../../core/run/agentSnapshot';
import { newId, outboxOf } from '../support/fixtures';
import { suiteHarness, type Harness } from '../support/harness';

const suite = suiteHarness({ api: 'chat' });
let h: Harness;
let runner: Runner;
beforeAll(() => ({ h, runner } = suite()));

const email = (n: number) => ({
  name: 'send_email',
  arguments: { to: `u${n}@example.com`, subject: `S${n}`, body: 'b' },
  callId: `mail-${n}`,
});

test('always-approve: later calls of the tool in later turns run without a pause, audited as auto_approved', async () => {
  const workflowId = newId('always-approve');
  h.model.script(workflowId, [
    { toolCalls: [email(1)] },
    { toolCalls: [email(2)] },
    { toolCalls: [email(3), { name: 'delete_record', arguments: { record_id: 'R1' }, callId: 'del-1' }] },
    { text: 'done' },
  ]);
  let result = await runner.run('email-assistant', 'mail everyone', { workflowId });
  const state = result.toState();
  state.approve('mail-1', { alwaysApprove: true, approver: 'ann', reason: 'newsletter' });
  result = await runner.run('email-assistant', state);
  // Turn 2's email ran by the rule; turn 3 pauses only for the delete.
  expect(result.interruptions.map((i) => i.callId)).toEqual(['del-1']);
  const s2 = result.toState();
  s2.reject('del-1');
  result = await runner.run('email-assistant', s2);
  expect(result.finalOutput).toBe('done');
  expect((await runner.describe(result.workflowId)).audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['mail-1', 'approved', 'ann'],
    ['mail-2', 'auto_approved', 'ann'],
    ['mail-3', 'auto_approved', 'ann'],
    ['del-1', 'rejected', expect.any(String)],
  ]);
  const sent = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
  expect(sent.map((e) => e.to)).toEqual(['u1@example.com', 'u2@example.com', 'u3@example.com']);
});

test('always-reject reuses its message for later calls', async () => {
  const workflowId = newId('always-reject');
  h.model.script(workflowId, [{ toolCalls: [email(1)] }, { toolCalls: [email(2)] }, { text: 'gave up' }]);
  let result = await runner.run('email-assistant', 'mail', { workflowId });
  const state = result.toState();
  state.reject('mail-1', { alwaysReject: true, message: 'No emails today' });
  result = await runner.run('email-assistant', state);
  expect(result.finalOutput).toBe('gave up');
  const outputs = (await runner.describe(result.workflowId)).items
    .filter((i) => i.type === 'function_call_output')
    .map((i) => (i as { output: string }).output);
  expect(outputs).toEqual(['No emails today', 'No emails today']);
  expect((await runner.describe(result.workflowId)).audit.map((a) => a.decision)).toEqual([
    'rejected',
    'auto_rejected',
  ]);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(0);
});

test('unknown tools and invalid arguments never run and never pause; the model gets the error and goes on', async () => {
  const workflowId = newId('bad-calls');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'transfer_funds', arguments: { amount: 100 }, callId: 'u1' },
        { name: 'send_email', arguments: { to: 5 }, callId: 'v1' },
        { name: 'delete_record', arguments: '{"record_id": ', callId: 'j1' },
      ],
    },
    { text: 'sorry' },
  ]);
  const result = await runner.run('email-assistant', 'go', { workflowId });
  expect(result.status).toBe('Completed');
  expect((await runner.describe(result.workflowId)).audit).toHaveLength(0);
  const out = Object.fromEntries(
    (await runner.describe(result.workflowId)).items.flatMap((i) =>
      i.type === 'function_call_output' ? [[i.callId, i.output]] : [],
    ),
  );
  expect(out.u1).toBe('Tool transfer_funds not found. Available tools: lookup_contact, send_email, delete_record.');
  expect(out.v1).toMatch(
    /^Invalid arguments for tool send_email: to: Invalid input: expected string, received number\./,
  );
  expect(out.j1).toBe(
    'Invalid arguments for tool delete_record: the arguments are not valid JSON. Call it again with arguments that match its schema.',
  );
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(0);
});

test('maxTurns: a model that never stops fails the run with MaxTurnsExceeded', async () => {
  const workflowId = newId('max-turns');
  h.model.script(
    workflowId,
    [1, 2, 3].map((n) => ({ toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: `l${n}` }] })),
  );
  await expect(runner.run('email-assistant', 'loop', { workflowId, maxTurns: 2 })).rejects.toMatchObject({
    name: 'RunFailedError',
    type: 'MaxTurnsExceeded',
  });
});

test('the agent snapshot (instructions, tools, JSON schemas, approval policy, version) is recorded in history', async () => {
  const result = await runner.run('weather-assistant', "What's the weather in Lisbon?");
  const { events } = await h.client.workflow.getHandle(result.workflowId).fetchHistory();
  const marker = events!.find((e) => e.markerRecordedEventAttributes)!.markerRecordedEventAttributes!;
  const payload = marker.details!.result!.payloads![0]!; // local activity marker: `data` is its metadata, `result` the snapshot
  const snapshot = JSON.parse(Buffer.from(payload.data!).toString('utf8'));
  expect(snapshot).toEqual({
    name: 'weather-assistant',
    version: '1',
    instructions: expect.stringContaining('weather'),
    tools: [
      {
        name: 'get_temperature',
        description: expect.any(String),
        parameters: expect.objectContaining({ type: 'object', required: ['city'] }),
        approval: 'predicate',
        strict: true, // sent to the model in strict mode
      },
      {
        name: 'get_weather',
        description: expect.any(String),
        parameters: expect.objectContaining({ type: 'object' }),
        approval: 'never',
        strict: true,
      },
    ],
    webhook: false, // the harness's worker has none: notifications are logged by the run
    revision: SNAPSHOT_REVISION, // the changes the run takes without a patch marker (workflows/patches.ts)
    modelApi: 'chat', // the harness's worker calls Chat Completions (a server conversation would send everything)
  });
});
