// Human steps beyond yes/no: approving with edited arguments (validated against the tool's schema), and adding a
// user message to a paused run. Through RunState, the decide update, the signals and the CLI.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { DecisionRejectedError, Runner } from '../../client';
import {
  addInputSignal,
  approveSignal,
  decideUpdate,
  provideInputSignal,
  provideResultSignal,
  runStateQuery,
} from '../../contract/messages';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { countersign as countersignOrThrow, countersignExit } from '../support/countersignCli';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

// Agno's other human steps, as tools: fields a person fills in, a result from outside, an audit-only call.
const kinds = defineAgent({
  name: 'kinds-assistant',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'book_meeting',
      description: 'Book a meeting',
      parameters: z.object({ title: z.string(), time: z.string().regex(/^\d\d:\d\d$/, 'use HH:MM') }),
      userInput: ['time'],
      execute: ({ title, time }) => `Meeting '${title}' booked at ${time}`,
    }),
    defineTool({
      name: 'charge_card',
      description: 'Charge a card',
      parameters: z.object({ amount: z.number() }),
      external: true,
    }),
    // The same with a short wait, for the timeout case only (a loaded machine must not race the other cases).
    defineTool({
      name: 'charge_card_quick',
      description: 'Charge a card, answer soon',
      parameters: z.object({ amount: z.number() }),
      external: true,
      resultTimeout: '2s',
    }),
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      audit: true,
      execute: ({ path }) => `contents of ${path}`,
    }),
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, kinds]) });
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

const countersign = (...args: string[]) => countersignExit(args);

test('input: the call waits for the fields a person fills in, checked against the schema, then runs', async () => {
  const workflowId = newId('input');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'book_meeting', arguments: { title: 'Sync' }, callId: 'b1' }] },
    { text: 'booked' },
  ]);
  const paused = await runner.run('kinds-assistant', 'book', { workflowId });
  expect(paused.interruptions).toEqual([
    expect.objectContaining({ callId: 'b1', kind: 'input', fields: ['time'], toolName: 'book_meeting' }),
  ]);

  const approveIt = paused.toState().approve('b1');
  await expect(runner.run('kinds-assistant', approveIt)).rejects.toThrow(
    'call b1 (book_meeting) waits for input, not "approve": send "input" with values for time (or reject it)',
  );
  const bad = paused.toState().provideInput('b1', { time: 'noon' });
  await expect(runner.run('kinds-assistant', bad)).rejects.toThrow(DecisionRejectedError);
  await expect(runner.run('kinds-assistant', bad)).rejects.toThrow(
    'input values for call b1 (book_meeting) are invalid: time: use HH:MM',
  );
  const cli = await countersign('input', workflowId, 'b1', '--values', '{"time": 9}');
  expect([cli.code, cli.stderr.trim()]).toEqual([
    1,
    'countersign: input values for call b1 (book_meeting) are invalid: time: Invalid input: expected string, received number',
  ]);

  const done = await runner.run(
    'kinds-assistant',
    paused.toState().provideInput('b1', { time: '10:30' }, { approver: 'ann' }),
  );
  expect(done.finalOutput).toBe('booked');
  expect((await runner.describe(done.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'b1',
    output:
      'A person filled in time; the call ran with {"title":"Sync","time":"10:30"}.\nMeeting \'Sync\' booked at 10:30',
  });
  expect((await runner.describe(done.workflowId)).audit).toEqual([
    expect.objectContaining({
      callId: 'b1',
      decision: 'input_provided',
      approver: 'ann',
      editedArguments: '{"title":"Sync","time":"10:30"}',
    }),
  ]);
});

test('input through the signal and the CLI', async () => {
  for (const via of ['signal', 'cli'] as const) {
    const workflowId = newId(`input-${via}`);
    h.model.script(workflowId, [
      { toolCalls: [{ name: 'book_meeting', arguments: { title: 'Plan' }, callId: 'b2' }] },
      { text: 'ok' },
    ]);
    await runner.run('kinds-assistant', 'book', { workflowId });
    if (via === 'signal')
      await h.client.workflow
        .getHandle(workflowId)
        .signal(provideInputSignal, { callId: 'b2', values: { time: '08:15' } });
    else expect((await countersign('input', workflowId, 'b2', '--values', '{"time":"08:15"}')).code).toBe(0);
    const done = await runner.nextPause(workflowId);
    expect((await runner.describe(done.workflowId)).items.find((i) => i.type === 'function_call_output')).toMatchObject(
      { output: expect.stringContaining("Meeting 'Plan' booked at 08:15") },
    );
  }
});

test('external: the worker never runs it; the result (or failure) arrives from outside, or the wait times out', async () => {
  const ids = { ok: newId('ext-ok'), failed: newId('ext-fail'), late: newId('ext-late') };
  for (const [name, id] of Object.entries(ids))
    h.model.script(id, [
      {
        toolCalls: [
          { name: name === 'late' ? 'charge_card_quick' : 'charge_card', arguments: { amount: 12 }, callId: 'x1' },
        ],
      },
      { text: 'ok' },
    ]);
  const first = await runner.run('kinds-assistant', 'pay', { workflowId: ids.ok });
  expect(first.interruptions).toEqual([expect.objectContaining({ kind: 'external', toolName: 'charge_card' })]);
  expect(first.interruptions[0]!.expiresAt).toBeUndefined();
  await h.client.workflow
    .getHandle(ids.ok)
    .signal(provideResultSignal, { callId: 'x1', result: { status: 'charged', id: 'ch_1' } });
  const ok = await runner.nextPause(ids.ok);
  expect((await runner.describe(ok.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'x1',
    output: '{"status":"charged","id":"ch_1"}',
  });
  expect((await runner.describe(ok.workflowId)).audit).toEqual([
    expect.objectContaining({ decision: 'result_provided' }),
  ]);

  await runner.run('kinds-assistant', 'pay', { workflowId: ids.failed });
  const cli = await countersign('provide-result', ids.failed, 'x1', '--error', 'card declined');
  expect(cli.code).toBe(0);
  const failed = await runner.nextPause(ids.failed);
  expect((await runner.describe(failed.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'x1',
    output: 'The external execution failed: card declined',
  });

  const late = await runner.run('kinds-assistant', 'pay', { workflowId: ids.late });
  expect(Date.parse(late.interruptions[0]!.expiresAt!) - Date.parse(late.interruptions[0]!.requestedAt)).toBe(2000);
  await eventually(
    async () =>
      (await h.client.workflow.getHandle(ids.late).query(runStateQuery)).status === 'Completed' ? true : undefined,
    15_000,
  );
  const final = await h.client.workflow.getHandle(ids.late).query(runStateQuery);
  expect(final.items).toContainEqual({
    type: 'function_call_output',
    callId: 'x1',
    output: 'No result arrived within 2s.',
  });
  expect(final.audit).toEqual([expect.objectContaining({ decision: 'expired', onTimeout: 'reject' })]);
  expect(
    (await outboxOf(h.outbox)).filter((e) => Object.values(ids).some((id) => e.idempotencyKey.startsWith(`${id}:`))),
  ).toHaveLength(0);
});

test('audit: the call runs at once and is recorded for later review', async () => {
  const workflowId = newId('audit-kind');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'read_file', arguments: { path: '/etc/motd' }, callId: 'r1' }] },
    { text: 'read' },
  ]);
  const done = await runner.run('kinds-assistant', 'read', { workflowId });
  expect(done.status).toBe('Completed');
  expect((await runner.describe(done.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'r1',
    output: 'contents of /etc/motd',
  });
  expect((await runner.describe(done.workflowId)).audit).toEqual([
    expect.objectContaining({
      callId: 'r1',
      toolName: 'read_file',
      arguments: '{"path":"/etc/motd"}',
      decision: 'audited',
    }),
  ]);
});

test('input calls time out like approvals: the model hears it, nothing runs', async () => {
  const workflowId = newId('input-timeout');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'book_meeting', arguments: { title: 'Late' }, callId: 'b9' }] },
    { text: 'nobody answered' },
  ]);
  await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ agent: 'kinds-assistant', input: 'book', approvalTimeout: '1s' }],
  });
  const done = await h.client.workflow.getHandle(workflowId).result();
  expect(done.finalOutput).toBe('nobody answered');
  expect(done.items).toContainEqual({
    type: 'function_call_output',
    callId: 'b9',
    output: 'The approval request expired after 1s.',
  });
  expect(done.audit).toEqual([expect.objectContaining({ callId: 'b9', decision: 'expired', onTimeout: 'reject' })]);
});
