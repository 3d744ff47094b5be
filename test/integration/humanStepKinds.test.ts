// Human steps beyond an approval, Agno's other kinds as tools: fields a person fills in (checked against the schema,
// timing out like approvals), a result from outside (or a failure, or a wait that times out), and an audit-only call.
// Through RunState, the signals and the CLI. Edited arguments and added input are in humanEdits.test.ts.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { DecisionRejectedError, Runner } from '../../client';
import { provideInputSignal, provideResultSignal, runStateQuery } from '../../contract/messages';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { countersignExit } from '../support/countersignCli';

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
