// Handoff input filters and onHandoff: the receiving agent's model is sent the conversation as the handoff's filter
// leaves it ('remove_all_tools', { keepLast }, or a function run in an activity), while the run keeps and shows all
// of it; onHandoff runs once, in an activity, when the handoff happens.
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { lookupContact } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import type { ConversationItem } from '../../contract/items';
import type { HandoffSpec } from '../../agents/agentConfig';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

const handedOver: Array<{ context: Record<string, unknown>; reason?: string; agentName: string }> = [];
const router = (name: string, inputFilter: HandoffSpec['inputFilter']) =>
  defineAgent({
    name,
    instructions: 'You route requests.',
    tools: [lookupContact],
    handoffs: [
      {
        agent: 'email-assistant',
        inputFilter,
        onHandoff: (ctx, input) =>
          void handedOver.push({ context: ctx.context, reason: input.reason, agentName: ctx.agentName }),
      },
    ],
  });
const removeTools = router('route-remove-tools', 'remove_all_tools');
const keepLast = router('route-keep-last', { keepLast: 3 });
const summarise = router('route-summarise', ({ inputHistory, fromAgent, toAgent }) => [
  {
    type: 'message',
    role: 'user',
    content: `${fromAgent} hands over to ${toAgent} after ${inputHistory.length} items`,
  },
]);

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, removeTools, keepLast, summarise]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const requestsOf = (workflowId: string) => h.model.requests.filter((r) => r.runId === workflowId);
const withoutSystem = (items: Array<{ kind: string; role?: string }>) =>
  items.filter((i) => !(i.kind === 'message' && i.role === 'system'));
/** Looks alice up, hands over to the email assistant, which looks bob up and answers. */
function script(workflowId: string): void {
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: 'l1' }] },
    { toolCalls: [{ name: 'transfer_to_email_assistant', arguments: { reason: 'mail' }, callId: 'h1' }] },
    { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l2' }] },
    { text: 'done' },
  ]);
}
async function conversation(workflowId: string): Promise<ConversationItem[]> {
  const items: ConversationItem[] = [];
  for await (const item of runner.conversation(workflowId)) items.push(item);
  return items;
}

test("remove_all_tools: the next agent's model gets no tool items from before the handoff; the run keeps them all; onHandoff ran once", async () => {
  const workflowId = newId('handoff-remove-tools');
  script(workflowId);
  handedOver.length = 0;
  const done = await runner.run('route-remove-tools', 'Mail alice and bob', { workflowId, context: { tenant: 't1' } });
  expect(done.finalOutput).toBe('done');
  expect(handedOver).toEqual([{ context: { tenant: 't1' }, reason: 'mail', agentName: 'route-remove-tools' }]);

  const requests = requestsOf(workflowId);
  expect(requests).toHaveLength(4);
  expect(withoutSystem(requests[2]!.items)).toEqual([{ kind: 'message', role: 'user', text: 'Mail alice and bob' }]);
  // Its own tool calls after the handoff are sent as usual.
  expect(withoutSystem(requests[3]!.items)).toEqual([
    { kind: 'message', role: 'user', text: 'Mail alice and bob' },
    { kind: 'call', callId: 'l2', name: 'lookup_contact', arguments: '{"name":"bob"}' },
    { kind: 'output', callId: 'l2', output: 'bob@example.com' },
  ]);
  const kept = await conversation(workflowId);
  expect(kept.filter((i) => i.type === 'function_call_output').map((i) => (i as { callId: string }).callId)).toEqual([
    'l1',
    'h1',
    'l2',
  ]);
  expect((await runner.describe(workflowId)).handoffs).toEqual([
    expect.objectContaining({ callId: 'h1', inputFilter: { at: 5, filter: 'remove_all_tools' } }),
  ]);
});

test('keepLast: the last n items, without a tool output whose call was cut off', async () => {
  const workflowId = newId('handoff-keep-last');
  script(workflowId);
  const done = await runner.run('route-keep-last', 'Mail alice and bob', { workflowId });
  expect(done.finalOutput).toBe('done');
  // The last 3 items before the handoff: l1's output (its call cut off: dropped), the handoff's call and output.
  expect(withoutSystem(requestsOf(workflowId)[2]!.items)).toEqual([
    { kind: 'call', callId: 'h1', name: 'transfer_to_email_assistant', arguments: '{"reason":"mail"}' },
    { kind: 'output', callId: 'h1', output: 'Transferred to email-assistant. It continues the conversation.' },
  ]);
});

test('a function filter runs in an activity: its items are what the next agent sees, then its own turns', async () => {
  const workflowId = newId('handoff-function');
  script(workflowId);
  handedOver.length = 0;
  const done = await runner.run('route-summarise', 'Mail alice and bob', { workflowId });
  expect(done.finalOutput).toBe('done');
  expect(handedOver).toHaveLength(1);
  const requests = requestsOf(workflowId);
  const summary = {
    kind: 'message',
    role: 'user',
    text: 'route-summarise hands over to email-assistant after 5 items',
  };
  expect(withoutSystem(requests[2]!.items)).toEqual([summary]);
  expect(withoutSystem(requests[3]!.items)).toEqual([
    summary,
    { kind: 'call', callId: 'l2', name: 'lookup_contact', arguments: '{"name":"bob"}' },
    { kind: 'output', callId: 'l2', output: 'bob@example.com' },
  ]);
});
