// Human steps on an approval beyond yes/no: approving with edited arguments (validated against the tool's schema), and
// adding a user message to a paused run. Through RunState, the decide update, the signals and the CLI. The other kinds
// of human step (input, external, audit) are in humanStepKinds.test.ts.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { AgentRegistry, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { addInputSignal, approveSignal, decideUpdate, runStateQuery } from '../../contract/messages';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { countersign as countersignOrThrow, countersignExit } from '../support/countersignCli';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const mail = (callId: string) => ({
  toolCalls: [{ name: 'send_email', arguments: { to: 'wrong@example.com', subject: 'Hi', body: 'b' }, callId }],
});

test('approve with edited arguments: the tool runs with them, the model is told, the audit keeps both', async () => {
  const workflowId = newId('edit');
  h.model.script(workflowId, [mail('e1'), { text: 'ok' }]);
  const paused = await runner.run('email-assistant', 'mail', { workflowId });
  const state = paused.toState();
  state.approve('e1', { editedArguments: { to: 'right@example.com', subject: 'Hi', body: 'b' }, approver: 'ann' });
  const done = await runner.run('email-assistant', state);
  expect(done.finalOutput).toBe('ok');
  const sent = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey === `${workflowId}:e1`);
  expect(sent.map((e) => e.to)).toEqual(['right@example.com']);
  expect((await runner.describe(done.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'e1',
    output:
      'A reviewer changed the arguments of this call before it ran; it ran with {"to":"right@example.com","subject":"Hi","body":"b"}.\nEmail sent to right@example.com with subject \'Hi\'',
  });
  expect((await runner.describe(done.workflowId)).audit[0]).toMatchObject({
    decision: 'approved',
    arguments: '{"to":"wrong@example.com","subject":"Hi","body":"b"}',
    editedArguments: '{"to":"right@example.com","subject":"Hi","body":"b"}',
  });
});

test('invalid edited arguments are refused by the update (and ignored on the signal path); nothing changes', async () => {
  const workflowId = newId('edit-bad');
  h.model.script(workflowId, [mail('e2'), { text: 'ok' }]);
  await runner.run('email-assistant', 'mail', { workflowId });
  const handle = h.client.workflow.getHandle(workflowId);
  const err = await handle
    .executeUpdate(decideUpdate, {
      args: [{ decisions: [{ callId: 'e2', decision: 'approve', editedArguments: { to: 42 } }] }],
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((err as WorkflowUpdateFailedError).cause!.message).toBe(
    'editedArguments for call e2 (send_email) are invalid: to: Invalid input: expected string, received number',
  );
  const rejectWithEdit = await handle
    .executeUpdate(decideUpdate, { args: [{ decisions: [{ callId: 'e2', decision: 'reject', editedArguments: {} }] }] })
    .catch((e: unknown) => e);
  expect((rejectWithEdit as WorkflowUpdateFailedError).cause!.message).toBe(
    'invalid decide request: decisions.0.editedArguments: only an approval can carry editedArguments',
  );

  await handle.signal(approveSignal, { callId: 'e2', editedArguments: '{"to": ' });
  const cli = await countersignExit(['approve', workflowId, 'e2', '--edit', '{"subject": 7}']);
  expect((cli as { code: number }).code).toBe(1);
  expect((cli as { stderr: string }).stderr.trim()).toMatch(
    /^countersign: editedArguments for call e2 \(send_email\) are invalid: (to|subject|body): /,
  );

  // The signal's edit is checked in an activity before it is audited: wait for that.
  const state = await eventually(async () => {
    const s = await handle.query(runStateQuery);
    return s.audit.length ? s : undefined;
  });
  expect(state.pending.map((p) => p.callId)).toEqual(['e2']);
  expect(state.audit).toEqual([
    expect.objectContaining({
      callId: 'e2',
      decision: 'ignored',
      ignoredBecause: 'editedArguments for call e2 (send_email) are invalid: the arguments are not valid JSON',
    }),
  ]);
  await runner.decide(workflowId, [{ callId: 'e2', decision: 'reject' }]);
});

test('addInput while paused: the message reaches the model on its next turn (RunState, signal and CLI)', async () => {
  const workflowId = newId('add-input');
  h.model.script(workflowId, [mail('i1'), { text: 'noted' }]);
  const paused = await runner.run('email-assistant', 'mail', { workflowId });
  await h.client.workflow.getHandle(workflowId).signal(addInputSignal, { message: 'Also, sign it from Bob.' });
  await countersignOrThrow(['add-input', workflowId, 'And cc the team.']);
  await eventually(async () =>
    (await h.client.workflow.getHandle(workflowId).query(runStateQuery)).queuedInputs.length === 2 ? true : undefined,
  );
  const state = paused.toState();
  state.addInput('Make it short.');
  state.reject('i1', { message: 'wait' });
  const done = await runner.run('email-assistant', state);
  expect(done.finalOutput).toBe('noted');
  const second = h.model.requests.filter((r) => r.runId === workflowId)[1]!;
  const tail = second.items.slice(-4);
  expect(tail).toEqual([
    { kind: 'output', callId: 'i1', output: 'wait' },
    { kind: 'message', role: 'user', text: 'Also, sign it from Bob.' },
    { kind: 'message', role: 'user', text: 'And cc the team.' },
    { kind: 'message', role: 'user', text: 'Make it short.' },
  ]);
  expect((await runner.describe(done.workflowId)).queuedInputs).toEqual([]);
});
