// Handoffs: an agent hands the conversation to another, which continues it in the same workflow with its own
// tools and approval policies; a handoff can itself need approval.
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

const triage = defineAgent({
  name: 'triage-assistant',
  instructions: 'You route requests.',
  tools: [],
  handoffs: ['email-assistant', { agent: 'weather-assistant', needsApproval: true }],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, triage]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

test('a handoff moves the run to the second agent, whose own approval policy then pauses it', async () => {
  const workflowId = newId('handoff');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'transfer_to_email_assistant', arguments: { reason: 'email request' }, callId: 'h1' }] },
    {
      toolCalls: [{ name: 'send_email', arguments: { to: 'hi@example.com', subject: 'Hi', body: 'b' }, callId: 's1' }],
    },
    { text: 'sent' },
  ]);
  const paused = await runner.run('triage-assistant', 'Email hi@example.com', { workflowId });
  expect(paused.snapshot.agent.name).toBe('email-assistant');
  expect(paused.interruptions).toEqual([
    expect.objectContaining({ callId: 's1', toolName: 'send_email', agentName: 'email-assistant' }),
  ]);
  expect((await runner.describe(paused.workflowId)).handoffs).toEqual([
    { from: 'triage-assistant', to: 'email-assistant', callId: 'h1', at: expect.any(String) },
  ]);

  const requests = h.model.requests.filter((r) => r.runId === workflowId);
  expect(requests[0]!.tools).toEqual(['transfer_to_email_assistant', 'transfer_to_weather_assistant']);
  expect(requests[1]!.tools).toEqual(['lookup_contact', 'send_email', 'delete_record']);
  expect((requests[1]!.items[0] as { text: string }).text).toContain('manage their emails');
  expect(requests[1]!.items).toContainEqual({
    kind: 'output',
    callId: 'h1',
    output: 'Transferred to email-assistant. It continues the conversation.',
  });

  // The seed loop resumes under the agent it started with; the current agent works too.
  const done = await runner.run('triage-assistant', paused.toState().approve('s1'));
  expect(done.finalOutput).toBe('sent');
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey === `${workflowId}:s1`)).toHaveLength(1);
});

test('a handoff that needs approval waits; rejected, the first agent keeps the conversation', async () => {
  const workflowId = newId('handoff-gated');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'transfer_to_weather_assistant', arguments: {}, callId: 'h2' }] },
    { text: 'staying here' },
  ]);
  const paused = await runner.run('triage-assistant', 'weather?', { workflowId });
  expect(paused.interruptions).toEqual([
    expect.objectContaining({ callId: 'h2', toolName: 'transfer_to_weather_assistant' }),
  ]);
  const done = await runner.run('triage-assistant', paused.toState().reject('h2', { message: 'No weather today' }));
  expect(done.finalOutput).toBe('staying here');
  expect(done.snapshot.agent.name).toBe('triage-assistant');
  expect((await runner.describe(done.workflowId)).handoffs).toEqual([]);
});
