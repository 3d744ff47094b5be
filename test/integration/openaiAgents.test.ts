// fromOpenAIAgents on the real dev server with the scripted model: `@openai/agents` agents, made with the SDK's own
// Agent, tool() and handoff(), run durably unchanged. A predicate needsApproval pauses one call and not another, and
// invoke runs once on approval and never on rejection; an asTool() agent's own gated tool surfaces on the top run with
// its path and is decided there; a handoff() with its own tool name, an input filter and onHandoff; an input
// guardrail that trips; an instructions function that reads the run's context through the SDK's RunContext.
import { Agent, handoff, tool, type RunContext } from '@openai/agents';
import { removeAllTools } from '@openai/agents-core/extensions';
import { z } from 'zod';
import { AgentRegistry, demoAgents } from '../../agents';
import { InputGuardrailTripwireTriggered, Runner } from '../../client';
import { fromOpenAIAgents } from '../../adapters/openaiAgents';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

type Ctx = { tenant?: string };
const invoked: Array<{ amount: number; callId?: string; tenant?: string }> = [];
const transfer = tool({
  name: 'transfer_money',
  description: 'Send money to an account',
  parameters: z.object({ to: z.string(), amount: z.number() }),
  needsApproval: async (_rc, { amount }) => amount > 100,
  execute: async ({ to, amount }, rc, details) => {
    invoked.push({ amount, callId: details?.toolCall?.callId, tenant: (rc?.context as Ctx | undefined)?.tenant });
    return `sent ${amount} to ${to}`;
  },
});
const bank = new Agent<Ctx>({ name: 'oa-bank', instructions: 'You move money.', tools: [transfer] });

const lookups: string[] = [];
const lookup = new Agent({
  name: 'oa-lookup',
  instructions: 'You find out who users are.',
  tools: [
    tool({
      name: 'get_user_name',
      description: "Look up a user's name",
      parameters: z.object({ userId: z.string() }),
      needsApproval: true,
      execute: async ({ userId }) => {
        lookups.push(userId);
        return `User ${userId} is Ada Lovelace`;
      },
    }),
  ],
});
const desk = new Agent({
  name: 'oa-desk',
  instructions: 'You answer questions about users.',
  tools: [lookup.asTool({ toolName: 'ask_lookup', toolDescription: 'Find out who a user is' })],
});

const note = tool({
  name: 'take_note',
  description: 'Write a note',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => `noted: ${text}`,
});
const handedOver: unknown[] = [];
const billing = new Agent<Ctx>({
  name: 'oa-billing',
  instructions: (rc, agent) => `You are ${agent.name} for tenant ${rc.context.tenant}.`,
  tools: [note],
});
const triage = new Agent<Ctx>({
  name: 'oa-triage',
  instructions: 'You route requests.',
  tools: [note],
  handoffs: [
    handoff(billing, {
      toolNameOverride: 'go_to_billing',
      toolDescriptionOverride: 'Billing questions',
      inputFilter: removeAllTools,
      onHandoff: (rc: RunContext<Ctx>) => void handedOver.push(rc.context),
    }),
  ],
});

const guarded = new Agent({
  name: 'oa-guarded',
  instructions: 'You chat.',
  inputGuardrails: [
    {
      name: 'no passwords',
      execute: async ({ input, context }) => ({
        tripwireTriggered: String(input).includes('password'),
        outputInfo: { tenant: (context.context as Ctx).tenant },
      }),
    },
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  const agents = fromOpenAIAgents([bank, desk, triage, guarded]);
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, ...agents]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

test('the walk registers the given agents and those behind handoffs and asTool() tools, each once', () => {
  const names = fromOpenAIAgents([bank, desk, triage, guarded, lookup]).map((a) => a.name);
  expect(names).toEqual(['oa-bank', 'oa-desk', 'oa-triage', 'oa-guarded', 'oa-lookup', 'oa-billing']);
});

const pay = (callId: string, amount: number) => ({
  name: 'transfer_money',
  arguments: { to: 'acc-1', amount },
  callId,
});

test('a predicate needsApproval pauses the large transfer only; approved, invoke runs once with the run context', async () => {
  const workflowId = newId('oa-pay');
  h.model.script(workflowId, [{ toolCalls: [pay('p1', 50), pay('p2', 500)] }, { text: 'both sent' }]);
  const paused = await runner.run(bank, 'Pay 50 and 500 to acc-1', { workflowId, context: { tenant: 'acme' } });
  expect(paused.status).toBe('AwaitingApproval');
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['p2']);
  expect(invoked).toEqual([{ amount: 50, callId: 'p1', tenant: 'acme' }]);

  paused.state.approve(paused.interruptions[0]!, { approver: 'ann' });
  const done = await runner.run(bank, paused.state);
  expect([done.status, done.finalOutput]).toEqual(['Completed', 'both sent']);
  expect(invoked).toEqual([
    { amount: 50, callId: 'p1', tenant: 'acme' },
    { amount: 500, callId: 'p2', tenant: 'acme' },
  ]);
  expect((await runner.describe(workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'p2',
    output: 'sent 500 to acc-1',
  });
});

test('rejected with a message, invoke never runs and the model reads the message', async () => {
  invoked.length = 0;
  const workflowId = newId('oa-pay-no');
  h.model.script(workflowId, [{ toolCalls: [pay('p3', 900)] }, { text: 'not sent' }]);
  const paused = await runner.run('oa-bank', 'Pay 900 to acc-1', { workflowId });
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['p3']);
  paused.state.reject(paused.interruptions[0]!, { message: 'over the daily limit', approver: 'ann' });
  const done = await runner.run(bank, paused.state);
  expect([done.status, done.finalOutput]).toEqual(['Completed', 'not sent']);
  expect(invoked).toEqual([]);
  const items = (await runner.describe(workflowId)).items;
  expect(items).toContainEqual(
    expect.objectContaining({
      type: 'function_call_output',
      callId: 'p3',
      output: expect.stringContaining('over the daily limit'),
    }),
  );
});

test("an asTool() agent's gated tool surfaces on the top run with its path and is decided there", async () => {
  const top = newId('oa-nested');
  h.model.script(top, [
    { toolCalls: [{ name: 'ask_lookup', arguments: { input: 'Who is u1?' }, callId: 'c1' }] },
    { text: 'u1 is Ada' },
  ]);
  h.model.script(`${top}/c1`, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c2' }] },
    { text: 'Ada Lovelace' },
  ]);
  const paused = await runner.run(desk, 'Who is u1?', { workflowId: top });
  expect(paused.status).toBe('AwaitingApproval');
  expect(paused.interruptions).toEqual([
    expect.objectContaining({
      callId: 'c2',
      toolName: 'get_user_name',
      agentName: 'oa-lookup',
      path: 'ask_lookup > get_user_name',
      runId: `${top}/c1`,
    }),
  ]);
  expect(lookups).toEqual([]);
  paused.state.approve(paused.interruptions[0]!, { approver: 'ann' });
  const done = await runner.run(desk, paused.state);
  expect([done.status, done.finalOutput]).toEqual(['Completed', 'u1 is Ada']);
  expect(lookups).toEqual(['u1']);
  expect((await runner.describe(top)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'c1',
    output: 'Ada Lovelace',
  });
});

test("a handoff() with its own tool name, removeAllTools and onHandoff; the next agent's instructions function reads the run's context", async () => {
  const workflowId = newId('oa-handoff');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'take_note', arguments: { text: 'billing' }, callId: 'n1' }] },
    { toolCalls: [{ name: 'go_to_billing', arguments: {}, callId: 'h1' }] },
    { text: 'billing here' },
  ]);
  const done = await runner.run(triage, 'I was charged twice', { workflowId, context: { tenant: 'acme' } });
  expect([done.status, done.finalOutput]).toEqual(['Completed', 'billing here']);
  expect(handedOver).toEqual([{ tenant: 'acme' }]);
  const requests = h.model.requests.filter((r) => r.runId === workflowId);
  expect(requests).toHaveLength(3);
  expect(requests[0]!.tools).toEqual(['take_note', 'go_to_billing']);
  const last = requests[2]!;
  expect(last.body.instructions ?? last.items[0]).toEqual(
    last.api === 'responses'
      ? 'You are oa-billing for tenant acme.'
      : { kind: 'message', role: 'system', text: 'You are oa-billing for tenant acme.' },
  );
  // removeAllTools: the billing agent's model sees the messages, none of the triage's tool calls.
  expect(last.items.filter((i) => i.kind !== 'message')).toEqual([]);
  expect(last.items).toContainEqual({ kind: 'message', role: 'user', text: 'I was charged twice' });
});

test('an input guardrail that trips fails the run as the tripwire, its input and context from the SDK shapes', async () => {
  const workflowId = newId('oa-guard');
  h.model.script(workflowId, [{ text: 'never acted on' }]);
  const err = await runner
    .run(guarded, 'my password is swordfish', { workflowId, context: { tenant: 'acme' } })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputGuardrailTripwireTriggered);
  expect((err as Error).message).toBe(`run ${workflowId} failed: input guardrail no_passwords tripped`);
  const ok = newId('oa-guard-ok');
  h.model.script(ok, [{ text: 'hello' }]);
  expect((await runner.run(guarded, 'hi there', { workflowId: ok })).finalOutput).toBe('hello');
});
