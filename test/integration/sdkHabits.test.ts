// The OpenAI Agents SDK's calling habits, on a real run: `runner.run(agent, input)` with an `@openai/agents` Agent
// object (its name picks the registered Countersign agent), approve through `result.state`, the state round-tripped
// as text with `RunState.fromString(agent, text)` (the SDK's order, awaited as the SDK's is), a rejection with a
// message the model reads, and one-line refusals (a state of another agent, an agent without a name) that send or
// start nothing. The streamed result has `state` too.
import { Agent } from '@openai/agents';
import { Runner, RunState, RunStateError, CountersignError, RunNotFoundError } from '../../client';
import { emailAssistant } from '../../agents/demo/emailAssistant';
import { newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);

// The SDK's own Agent objects: the same names as the demo agents the harness's worker registers.
const sdkEmail = new Agent({ name: 'email-assistant', instructions: 'You help users manage their emails.' });
const sdkWeather = new Agent({ name: 'weather-assistant', instructions: 'You tell the weather.' });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness();
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(() => h?.close());

const mail = {
  name: 'send_email',
  arguments: { to: 'alice@example.com', subject: 'Report', body: 'Q3' },
  callId: 's1',
};
const del = { name: 'delete_record', arguments: { record_id: 'DR-42' }, callId: 'd1' };

test('runStreamed takes the SDK Agent and its result has state; resumed streamed with the same object', async () => {
  const workflowId = newId('sdk-streamed');
  h.model.script(workflowId, [{ toolCalls: [mail] }, { text: 'sent' }]);
  const streamed = await runner.runStreamed(sdkEmail, 'Send the report to alice', { workflowId });
  const types: string[] = [];
  for await (const e of streamed) types.push(e.type);
  await streamed.completed;
  expect(types.at(-1)).toBe('run_paused');
  expect(streamed.state).toBe(streamed.state);
  streamed.state.approve(streamed.interruptions[0]!, { alwaysApprove: true, approver: 'ann' });
  const resumed = await runner.runStreamed(sdkEmail, streamed.state);
  for await (const e of resumed) types.push(e.type);
  await resumed.completed;
  expect([resumed.status, resumed.finalOutput, types.at(-1)]).toEqual(['Completed', 'sent', 'run_completed']);
  expect((await runner.describe(workflowId)).audit.map((a) => [a.callId, a.decision])).toEqual([['s1', 'approved']]);
});

test('an @openai/agents Agent runs, pauses, is approved through result.state, round-trips as text and is rejected with a message', async () => {
  const workflowId = newId('sdk-habits');
  h.model.script(workflowId, [{ toolCalls: [mail, del] }, { text: 'sent the report, kept the record' }]);
  const result = await runner.run(sdkEmail, 'Send the report to alice and delete DR-42', { workflowId });
  expect(result.status).toBe('AwaitingApproval');
  expect(result.interruptions.map((i) => [i.agent.name, i.name, i.callId])).toEqual([
    ['email-assistant', 'send_email', 's1'],
    ['email-assistant', 'delete_record', 'd1'],
  ]);

  // The SDK's loop: decide on result.state (the same object at every read), save it as text, read it back.
  result.state.approve(result.interruptions[0]!, { approver: 'ann' });
  expect(result.state.decisions).toEqual([{ callId: 's1', decision: 'approve', approver: 'ann' }]);
  const text = result.state.toString();

  // Another agent's object cannot read it: one line naming both agents.
  expect(() => RunState.fromString(sdkWeather, text)).toThrow(
    new RunStateError(
      `this RunState belongs to agent "email-assistant", not "weather-assistant": read it with the agent it was saved from, RunState.fromString('email-assistant', text)`,
    ),
  );
  const restored = await RunState.fromString(sdkEmail, text);
  expect(restored.decisions).toEqual(result.state.decisions);
  restored.reject(restored.getInterruptions()[1]!, { message: 'Deletion needs a manager', approver: 'ann' });

  // Resuming under another agent refuses in one line and sends nothing: the run still waits for both calls.
  await expect(runner.run(sdkWeather, restored)).rejects.toThrow(
    /^this RunState belongs to agent "email-assistant", not "weather-assistant"; resume it with runner\.run\('email-assistant', state\)$/,
  );
  expect((await runner.describe(workflowId)).pending.map((p) => p.callId)).toEqual(['s1', 'd1']);

  const done = await runner.run(sdkEmail, restored);
  expect(done.status).toBe('Completed');
  expect(done.finalOutput).toBe('sent the report, kept the record');
  const view = await runner.describe(workflowId);
  expect(view.audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['s1', 'approved', 'ann'],
    ['d1', 'rejected', 'ann'],
  ]);
  const outputs = Object.fromEntries(
    view.items.flatMap((i) => (i.type === 'function_call_output' ? [[i.callId, i.output]] : [])),
  );
  expect(outputs.d1).toBe('Deletion needs a manager');
  const sent = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
  expect(sent.map((e) => [e.kind, e.to])).toEqual([['email', 'alice@example.com']]);
  // The model saw the rejection text as the call's output on its second turn.
  const second = h.model.requests.filter((r) => r.runId === workflowId)[1]!;
  expect(second.items).toContainEqual({ kind: 'output', callId: 'd1', output: 'Deletion needs a manager' });
});

test('an agent without a name starts nothing; a name, an SDK Agent and a Countersign agent all start the same agent', async () => {
  const workflowId = newId('sdk-no-name');
  await expect(runner.run({ name: '' }, 'hello', { workflowId })).rejects.toThrow(CountersignError);
  await expect(runner.run({} as never, 'hello', { workflowId })).rejects.toThrow(
    /^runner\.run: the agent must be its name or an object with a non-empty string name \(an @openai\/agents Agent, a Countersign agent\), not an object without a name$/,
  );
  await expect(runner.runStreamed({ name: '' }, 'hello', { workflowId })).rejects.toThrow(/^runner\.runStreamed: /);
  await expect(runner.describe(workflowId)).rejects.toThrow(RunNotFoundError);

  for (const agent of ['email-assistant', sdkEmail, emailAssistant]) {
    const id = newId('sdk-agent-ref');
    h.model.script(id, [{ text: 'hi' }]);
    const r = await runner.run(agent, 'hello', { workflowId: id });
    expect([r.status, r.snapshot.agent.name, r.finalOutput]).toEqual(['Completed', 'email-assistant', 'hi']);
  }
});
