// Agent guardrails (inputGuardrails, outputGuardrails) on the real dev server with the scripted model. onTripwire 'ask':
// the run pauses with a pending item of kind `guardrail`, approved in the inbox (the run goes on) or rejected with the
// decide update (an input guardrail fails the run as the tripwire, with the person's message; an output guardrail's
// message goes to the model, which answers again). onTripwire 'fail': the run fails as the tripwire, with
// { guardrail, outputInfo } in the failure's details, audited `tripped`. A run whose agent has no guardrails never
// schedules the runGuardrails activity. The CLI lists and decides a guardrail's pending item as any call.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import {
  InputGuardrailTripwireTriggered,
  OutputGuardrailTripwireTriggered,
  RunFailedError,
  Runner,
} from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { freePort } from '../support/processes';
import { cliEnv, countersign } from '../support/countersignCli';

jest.setTimeout(180_000);
const BOT_TOKEN = 'guardrail-bot-token-0123456789abcdef';

const noPasswords = (onTripwire: 'ask' | 'fail') => ({
  name: 'no_passwords',
  onTripwire,
  execute: ({ input }: { input: string }) => ({
    tripwireTriggered: /password/i.test(input),
    outputInfo: { found: 'password' },
  }),
});
const askInput = defineAgent({
  name: 'guarded-ask',
  instructions: 'test',
  tools: [],
  inputGuardrails: [noPasswords('ask')],
});
const failInput = defineAgent({
  name: 'guarded-fail',
  instructions: 'test',
  tools: [],
  inputGuardrails: [noPasswords('fail')],
});
const noteTaker = defineAgent({
  name: 'guarded-notes',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'take_note',
      description: 'Take a note',
      parameters: z.object({ text: z.string() }),
      needsApproval: true,
      execute: ({ text }) => `noted: ${text}`,
    }),
  ],
  inputGuardrails: [noPasswords('fail')],
});
const askOutput = defineAgent({
  name: 'guarded-output',
  instructions: 'test',
  tools: [],
  outputGuardrails: [
    {
      name: 'no_digits',
      onTripwire: 'ask',
      execute: ({ agentOutput }) => ({
        tripwireTriggered: /\d/.test(String(agentOutput)),
        outputInfo: { digits: String(agentOutput).replace(/\D/g, '') },
      }),
    },
  ],
});
const failOutput = defineAgent({
  name: 'guarded-output-fail',
  instructions: 'test',
  tools: [],
  outputGuardrails: [{ name: 'never', execute: () => ({ tripwireTriggered: true }) }],
});

let h: Harness;
let runner: Runner;
let inbox: { url: string; close(): Promise<void> };
beforeAll(async () => {
  h = await startHarness({
    registry: new AgentRegistry([...demoAgents, askInput, failInput, noteTaker, askOutput, failOutput]),
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port: await freePort(), tokens: [{ approver: 'bot', token: BOT_TOKEN }] });
});
afterAll(async () => {
  await inbox?.close();
  await h?.close();
});

const requestsOf = (workflowId: string) => h.model.requests.filter((r) => r.runId === workflowId);
const activitiesOf = async (workflowId: string) => {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
  );
};
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${inbox.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' },
  });

test("an input guardrail with 'ask' pauses the run; approved in the inbox, the run goes on as if it passed", async () => {
  const workflowId = newId('guard-ask-ok');
  h.model.script(workflowId, [{ text: 'I will not repeat it.' }]);
  const paused = await runner.run('guarded-ask', 'my password is hunter2', { workflowId });
  expect(paused.snapshot.status).toBe('AwaitingApproval');
  expect(paused.snapshot.pending).toEqual([
    expect.objectContaining({
      callId: 'guardrail_no_passwords_1',
      kind: 'guardrail',
      toolName: 'no_passwords',
      arguments: JSON.stringify({ input: 'my password is hunter2' }),
      agentName: 'guarded-ask',
      guardrail: {
        name: 'no_passwords',
        stage: 'input',
        checked: 'my password is hunter2',
        outputInfo: { found: 'password' },
      },
    }),
  ]);
  // The inbox lists it with every other pending call, and decides it the same way.
  const listed = (await (await api('/api/pending')).json()) as Array<{
    workflowId: string;
    callId: string;
    kind: string;
  }>;
  expect(listed).toContainEqual(
    expect.objectContaining({ workflowId, callId: 'guardrail_no_passwords_1', kind: 'guardrail' }),
  );
  const decided = await api(`/api/runs/${workflowId}/decisions`, {
    method: 'POST',
    body: JSON.stringify({ decisions: [{ callId: 'guardrail_no_passwords_1', decision: 'approve' }] }),
  });
  expect(await decided.json()).toMatchObject({
    applied: [{ callId: 'guardrail_no_passwords_1', outcome: 'approved', approver: 'bot' }],
  });
  const done = await runner.nextPause(workflowId);
  expect(done.snapshot.status).toBe('Completed');
  expect(done.finalOutput).toBe('I will not repeat it.');
  expect(requestsOf(workflowId)).toHaveLength(1); // the model was called once, alongside the check
  expect((await runner.audit(workflowId)).map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['guardrail_no_passwords_1', 'approved', 'bot'],
  ]);
  expect((await activitiesOf(workflowId)).filter((a) => a === 'runGuardrails')).toHaveLength(1);
});

test("an input guardrail with 'ask', rejected: the run fails as the tripwire, with the person's message", async () => {
  const workflowId = newId('guard-ask-no');
  h.model.script(workflowId, [{ text: 'never acted on' }]);
  await runner.run('guarded-ask', 'the password is swordfish', { workflowId });
  const applied = await runner.decide(workflowId, [
    { callId: 'guardrail_no_passwords_1', decision: 'reject', approver: 'ann', message: 'no secrets in chat' },
  ]);
  expect(applied.applied).toEqual([
    expect.objectContaining({ callId: 'guardrail_no_passwords_1', outcome: 'rejected' }),
  ]);
  const err = await runner.nextPause(workflowId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputGuardrailTripwireTriggered);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as RunFailedError).type).toBe('InputGuardrailTripwireTriggered');
  expect((err as Error).message).toBe(
    `run ${workflowId} failed: input guardrail no_passwords tripped and a person rejected it: no secrets in chat`,
  );
  const snapshot = await runner.describe(workflowId);
  expect(snapshot.status).toBe('Failed');
  expect(snapshot.finalOutput).toBeUndefined();
});

test("an input guardrail with 'fail': InputGuardrailTripwireTriggered with { guardrail, outputInfo }, audited", async () => {
  const workflowId = newId('guard-fail');
  h.model.script(workflowId, [{ text: 'never acted on' }]);
  const err = await runner.run('guarded-fail', 'password: 1234', { workflowId }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputGuardrailTripwireTriggered);
  expect((err as Error).message).toBe(`run ${workflowId} failed: input guardrail no_passwords tripped`);
  const failure = await h.client.workflow
    .getHandle(workflowId)
    .result()
    .catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  let cause: unknown = (failure as WorkflowFailedError).cause;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('InputGuardrailTripwireTriggered');
  expect((cause as ApplicationFailure).details).toEqual([
    { guardrail: 'no_passwords', outputInfo: { found: 'password' } },
  ]);
  expect((await runner.audit(workflowId)).map((a) => [a.callId, a.decision, a.toolName, a.message])).toEqual([
    ['guardrail_no_passwords_1', 'tripped', 'no_passwords', '{"found":"password"}'],
  ]);
  // Input that passes: the run goes on (one runGuardrails activity per turn with new input).
  const passing = newId('guard-pass');
  h.model.script(passing, [{ text: 'hello' }]);
  expect((await runner.run('guarded-fail', 'hi there', { workflowId: passing })).finalOutput).toBe('hello');
  expect(await activitiesOf(passing)).toEqual(['runGuardrails', 'modelTurn']);
});

test('a run whose agent has no guardrails schedules no guardrail activity', async () => {
  const workflowId = newId('guard-none');
  h.model.script(workflowId, [{ text: 'sunny' }]);
  await runner.run('weather-assistant', 'weather?', { workflowId });
  expect(await activitiesOf(workflowId)).toEqual(['modelTurn']);
});

test("an output guardrail with 'ask': rejected, the model hears the message and answers again; approved, the run completes", async () => {
  const workflowId = newId('guard-out');
  h.model.script(workflowId, [{ text: 'Your PIN is 4321.' }, { text: 'I cannot share it.' }]);
  const paused = await runner.run('guarded-output', 'what is my PIN?', { workflowId });
  expect(paused.snapshot.pending).toEqual([
    expect.objectContaining({
      callId: 'guardrail_no_digits_1',
      kind: 'guardrail',
      guardrail: { name: 'no_digits', stage: 'output', checked: 'Your PIN is 4321.', outputInfo: { digits: '4321' } },
    }),
  ]);
  await runner.decide(workflowId, [
    { callId: 'guardrail_no_digits_1', decision: 'reject', message: 'Do not reveal PINs.' },
  ]);
  const second = await runner.nextPause(workflowId);
  expect(second.snapshot.status).toBe('Completed');
  expect(second.finalOutput).toBe('I cannot share it.');
  const told = requestsOf(workflowId).map((r) => r.items.at(-1));
  expect(told).toHaveLength(2);
  expect(told[1]).toEqual({ kind: 'message', role: 'user', text: 'Do not reveal PINs.' }); // as the scripted model reads it

  const approvedId = newId('guard-out-ok');
  h.model.script(approvedId, [{ text: 'Call 555.' }]);
  await runner.run('guarded-output', 'a number to call?', { workflowId: approvedId });
  await runner.decide(approvedId, [{ callId: 'guardrail_no_digits_1', decision: 'approve', approver: 'ann' }]);
  const done = await eventually(async () => {
    const s = await runner.describe(approvedId);
    return s.status === 'Completed' ? s : undefined;
  });
  expect(done.finalOutput).toBe('Call 555.');
});

test("an output guardrail with 'fail': OutputGuardrailTripwireTriggered", async () => {
  const workflowId = newId('guard-out-fail');
  h.model.script(workflowId, [{ text: 'anything' }]);
  const err = await runner.run('guarded-output-fail', 'hi', { workflowId }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OutputGuardrailTripwireTriggered);
  expect((err as Error).message).toBe(`run ${workflowId} failed: output guardrail never tripped`);
});

test('the CLI lists a tripped guardrail with the pending calls and rejects it like any call', async () => {
  const workflowId = newId('guard-cli');
  h.model.script(workflowId, [{ text: 'never acted on' }]);
  await runner.run('guarded-ask', 'a password for you', { workflowId });
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
  const listed = await countersign(['pending', '--json'], env);
  expect(JSON.parse(listed.stdout)).toContainEqual(
    expect.objectContaining({
      workflowId,
      callId: 'guardrail_no_passwords_1',
      kind: 'guardrail',
      toolName: 'no_passwords',
    }),
  );
  const shown = await countersign(['show', workflowId], env);
  expect(shown.stdout).toContain('guardrail no_passwords (input) tripped: {"found":"password"}'); // why, with outputInfo
  await countersign(['reject', workflowId, 'guardrail_no_passwords_1', '--message', 'not here', '--as', 'cy'], env);
  const err = await runner.nextPause(workflowId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputGuardrailTripwireTriggered);
  expect((err as Error).message).toContain('a person rejected it: not here');
  expect((await runner.audit(workflowId)).map((a) => [a.decision, a.approver, a.message])).toEqual([
    ['rejected', 'cy', 'not here'],
  ]);
});

test('messages added with add-input are checked on the turn they join the conversation', async () => {
  const workflowId = newId('guard-added');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'take_note', arguments: { text: 'hi' }, callId: 'n1' }] },
    { text: 'never acted on' },
  ]);
  const paused = await runner.run('guarded-notes', 'take a note', { workflowId });
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['n1']);
  await runner.decide(workflowId, [{ callId: 'n1', decision: 'approve' }], ['and my password is hunter2']);
  const err = await runner.nextPause(workflowId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputGuardrailTripwireTriggered);
  expect((await activitiesOf(workflowId)).filter((a) => a === 'runGuardrails')).toHaveLength(2); // turn 1, turn 2
  expect((await runner.audit(workflowId)).map((a) => [a.callId, a.decision])).toEqual([
    ['n1', 'approved'],
    ['guardrail_no_passwords_2', 'tripped'],
  ]);
});
