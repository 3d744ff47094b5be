// Every example of the seed guides (OpenAI Agents SDK human-in-the-loop), on a real Temporal server, through the
// client library: approve, reject with a message, several pending decided independently, mixing tools that run at
// once with tools that pause, toolErrorFormatter, a needsApproval predicate.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import { eventually, newId, outboxOf, scheduledActivities } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

// The seed's "Careful Assistant": a formatter that rewrites rejections.
const carefulAssistant = defineAgent({
  name: 'careful-assistant',
  instructions: 'You help users manage sensitive operations.',
  tools: [sendEmail, deleteRecord],
  toolErrorFormatter: ({ kind, toolName, defaultMessage }) =>
    kind === 'approval_rejected'
      ? `The tool '${toolName}' was rejected by a human reviewer. Reason: ${defaultMessage} Please inform the user and suggest alternatives.`
      : undefined,
});

// A predicate that cannot decide must fail closed.
const flakyPolicyAgent = defineAgent({
  name: 'flaky-policy',
  instructions: 'test agent',
  tools: [
    defineTool({
      name: 'transfer',
      description: 'Move money',
      parameters: z.object({ amount: z.number() }),
      needsApproval: () => {
        throw new Error('policy service down');
      },
      execute: ({ amount }) => `moved ${amount}`,
    }),
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, carefulAssistant, flakyPolicyAgent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const requestsOf = (workflowId: string) => h.model.requests.filter((r) => r.runId === workflowId);

test('approve: the paused send_email runs once approved, and the model sees its result', async () => {
  let result = await runner.run('email-assistant', 'Send an email to alice@example.com about the meeting tomorrow');
  expect(result.status).toBe('AwaitingApproval');
  expect(result.interruptions).toHaveLength(1);
  const [i] = result.interruptions;
  expect(i).toMatchObject({ toolName: 'send_email', agentName: 'email-assistant' });
  expect(JSON.parse(i!.arguments)).toMatchObject({ to: 'alice@example.com', subject: 'Meeting tomorrow' });
  expect(await outboxOf(h.outbox)).toHaveLength(0);

  const state = result.toState();
  state.approve(i!);
  result = await runner.run('email-assistant', state);
  expect(result.status).toBe('Completed');
  expect(result.interruptions).toHaveLength(0);
  expect(result.finalOutput).toBe("send_email: Email sent to alice@example.com with subject 'Meeting tomorrow'");
  const outbox = await outboxOf(h.outbox);
  expect(outbox.filter((e) => e.idempotencyKey === `${result.workflowId}:${i!.callId}`)).toHaveLength(1);
});

test('reject with a message: the tool never runs and the model gets the message', async () => {
  const before = (await outboxOf(h.outbox)).length;
  let result = await runner.run('email-assistant', 'Please delete record DR-7');
  const state = result.toState();
  state.reject(result.interruptions[0]!, { message: 'Not authorized to delete production records' });
  result = await runner.run('email-assistant', state);
  expect(result.finalOutput).toBe('delete_record: Not authorized to delete production records');
  expect(await outboxOf(h.outbox)).toHaveLength(before);
  const last = requestsOf(result.workflowId).at(-1)!;
  expect(last.items).toContainEqual({
    kind: 'output',
    callId: (await runner.describe(result.workflowId)).audit[0]!.callId,
    output: 'Not authorized to delete production records',
  });
});

test('multiple pending approvals are decided independently (the seed loop)', async () => {
  let result = await runner.run('email-assistant', 'Send the report to alice and delete the draft record DR-42');
  expect(result.interruptions.map((i) => i.toolName).sort()).toEqual(['delete_record', 'send_email']);
  const workflowId = result.workflowId;
  while (result.interruptions.length) {
    const state = result.toState();
    for (const i of result.interruptions) {
      if (i.toolName === 'send_email') state.approve(i);
      else state.reject(i, { message: 'Deletion requires manager approval' });
    }
    result = await runner.run('email-assistant', state);
  }
  expect(result.finalOutput).toBe(
    "send_email: Email sent to alice@example.com with subject 'Report'\ndelete_record: Deletion requires manager approval",
  );
  const mine = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
  expect(mine.map((e) => e.kind)).toEqual(['email']);
});

test('an approved call runs at once while its sibling still waits', async () => {
  const result = await runner.run('email-assistant', 'Send the report to bob and delete the draft record DR-43');
  const email = result.interruptions.find((i) => i.toolName === 'send_email')!;
  await runner.decide(result.workflowId, [{ callId: email.callId, decision: 'approve' }]);
  await eventually(async () =>
    (await outboxOf(h.outbox)).some((e) => e.idempotencyKey === `${result.workflowId}:${email.callId}`)
      ? true
      : undefined,
  );
  const handle = h.client.workflow.getHandle(result.workflowId);
  const pending = await handle.query('pendingApprovals');
  expect((pending as Array<{ toolName: string }>).map((p) => p.toolName)).toEqual(['delete_record']);
  const paused = await runner.nextPause(result.workflowId);
  expect(paused.status).toBe('AwaitingApproval');
  const state = paused.toState();
  state.reject(paused.interruptions[0]!);
  expect((await runner.run('email-assistant', state)).status).toBe('Completed');
});

test('mixing: lookup_contact runs at once and is never re-run; send_email pauses', async () => {
  const workflowId = newId('mixing');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'lookup-1' },
        {
          name: 'send_email',
          arguments: { to: 'bob@example.com', subject: 'Hi', body: 'Hello Bob' },
          callId: 'send-1',
        },
      ],
    },
    { text: 'All done' },
  ]);
  let result = await runner.run('email-assistant', 'Email bob', { workflowId });
  expect(result.interruptions.map((i) => i.callId)).toEqual(['send-1']);
  const handle = h.client.workflow.getHandle(workflowId);
  await eventually(async () =>
    (await scheduledActivities(handle)).filter((a) => a === 'runTool').length === 1 ? true : undefined,
  );
  const state = result.toState();
  state.approve('send-1');
  result = await runner.run('email-assistant', state);
  expect(result.finalOutput).toBe('All done');
  expect((await scheduledActivities(handle)).filter((a) => a === 'runTool')).toHaveLength(2);
  const outputs = (await runner.describe(result.workflowId)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs).toEqual([
    { type: 'function_call_output', callId: 'lookup-1', output: 'bob@example.com' },
    { type: 'function_call_output', callId: 'send-1', output: "Email sent to bob@example.com with subject 'Hi'" },
  ]);
});

test('toolErrorFormatter shapes the rejection text; a reviewer message still wins', async () => {
  let result = await runner.run('careful-assistant', 'Send the report to alice and delete the draft record DR-44');
  const state = result.toState();
  for (const i of result.interruptions) {
    if (i.toolName === 'send_email') state.reject(i);
    else state.reject(i, { message: 'Ask your manager' });
  }
  result = await runner.run('careful-assistant', state);
  expect(result.finalOutput).toBe(
    "send_email: The tool 'send_email' was rejected by a human reviewer. Reason: Tool execution was not approved. Please inform the user and suggest alternatives.\ndelete_record: Ask your manager",
  );
});

test('a needsApproval predicate: only Oakland needs a person', async () => {
  let result = await runner.run('weather-assistant', 'What is the temperature in Oakland and San Francisco?');
  expect(result.interruptions).toHaveLength(1);
  expect(JSON.parse(result.interruptions[0]!.arguments)).toEqual({ city: 'Oakland' });
  const state = result.toState();
  state.approve(result.interruptions[0]!);
  result = await runner.run('weather-assistant', state);
  expect(result.finalOutput).toBe(
    'get_temperature: The temperature in Oakland is 20° Celsius\nget_temperature: The temperature in San Francisco is 20° Celsius',
  );
});

test('a predicate that throws fails closed: the call waits for a person', async () => {
  const workflowId = newId('flaky');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'transfer', arguments: { amount: 5 }, callId: 't1' }] },
    { text: 'ok' },
  ]);
  const result = await runner.run('flaky-policy', 'move 5', { workflowId });
  expect(result.interruptions.map((i) => i.callId)).toEqual(['t1']);
  const state = result.toState();
  state.reject('t1');
  expect((await runner.run('flaky-policy', state)).finalOutput).toBe('ok');
});

test('without a webhook the run logs its notifications itself: no notify activity in its history', async () => {
  const workflowId = newId('quiet');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'alice@example.com', subject: 'Report', body: 'b' }, callId: 'q1' },
      ],
    },
    { text: 'Sent.' },
  ]);
  const paused = await runner.run('email-assistant', 'Send the report to alice', { workflowId });
  const done = await runner.run('email-assistant', paused.toState().approve('q1'));
  expect(done.finalOutput).toBe('Sent.');
  const handle = h.client.workflow.getHandle(workflowId);
  expect(await scheduledActivities(handle)).toEqual(['modelTurn', 'runTool', 'modelTurn']);
});
