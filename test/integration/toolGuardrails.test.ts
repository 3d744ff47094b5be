// Tool guardrails (defineTool inputGuardrails / outputGuardrails, the Agents SDK's shapes, plus `ask`): an input
// guardrail that asks puts a call that needs no approval before a person, who sees which guardrail and why, and the
// call runs once approved; rejectContent answers the model and the tool never runs; throwException fails the run
// (ToolInputGuardrailTripwireTriggered, with the guardrail, tool and outputInfo in its details); an output guardrail
// rewrites what the model sees, or fails the run (ToolOutputGuardrailTripwireTriggered). All against the scripted
// model and a real Temporal dev server.
import { z } from 'zod';
import { ApplicationFailure } from '@temporalio/common';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const ran: string[] = [];
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a customer up',
  parameters: z.object({ q: z.string() }),
  inputGuardrails: [
    {
      name: 'no_bulk_export',
      run: async ({ arguments: { q }, context }) => {
        if (q === 'everyone') return { behavior: { type: 'ask' }, outputInfo: { reason: 'bulk lookup', context } };
        if (q === 'secrets') return { behavior: { type: 'rejectContent', message: 'Lookups of secrets are refused.' } };
        if (q === 'drop table') return { behavior: { type: 'throwException' }, outputInfo: { matched: 'sql' } };
        return { behavior: { type: 'allow' } };
      },
    },
  ],
  outputGuardrails: [
    {
      name: 'no_card_numbers',
      run: ({ output }) =>
        JSON.stringify(output).includes('4111') // output: what execute returned (here an object, or a string)
          ? { behavior: { type: 'rejectContent', message: 'The result held a card number and was withheld.' } }
          : JSON.stringify(output).includes('PANIC')
            ? { behavior: { type: 'throwException' }, outputInfo: { found: 'PANIC' } }
            : { behavior: { type: 'allow' } },
    },
  ],
  execute: ({ q }, ctx) => {
    ran.push(`${ctx.runId}:${q}`);
    return q === 'alice' ? { name: 'Alice', card: '4111 1111' } : q === 'bob' ? 'bob: PANIC' : `found ${q}`;
  },
});
const agent = defineAgent({ name: 'guarded-lookup', instructions: 'test', tools: [lookup] });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([agent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const call = (q: string, callId: string) => ({ toolCalls: [{ name: 'lookup', arguments: { q }, callId }] });
const runsOf = (id: string) => ran.filter((r) => r.startsWith(`${id}:`)).map((r) => r.slice(id.length + 1));
const outputsOf = async (id: string) =>
  Object.fromEntries(
    (await runner.describe(id)).items.flatMap((i) => (i.type === 'function_call_output' ? [[i.callId, i.output]] : [])),
  );
/** The details of the failure the run's activity raised (under the run's own failure). */
async function failureDetails(id: string): Promise<unknown> {
  const err = await h.client.workflow
    .getHandle(id)
    .result()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (e instanceof ApplicationFailure && e.details?.length) return e.details[0];
  return undefined;
}

test('ask: a call that needs no approval waits for a person, who sees the guardrail; approved, it runs', async () => {
  const workflowId = newId('tool-guard-ask');
  h.model.script(workflowId, [call('everyone', 'c1'), { text: 'done' }]);
  const paused = await runner.run('guarded-lookup', 'export', { workflowId, context: { tenant: 'acme' } });
  expect(paused.status).toBe('AwaitingApproval');
  expect(runsOf(workflowId)).toEqual([]);
  const [pending] = await runner.pending(workflowId);
  expect(pending).toMatchObject({
    callId: 'c1',
    kind: 'approval',
    toolName: 'lookup',
    guardrail: {
      name: 'no_bulk_export',
      stage: 'tool_input',
      checked: '{"q":"everyone"}',
      outputInfo: { reason: 'bulk lookup', context: { tenant: 'acme' } },
    },
  });
  const done = await runner.run('guarded-lookup', paused.toState().approve('c1', { approver: 'ann' }));
  expect(done.finalOutput).toBe('done');
  expect(runsOf(workflowId)).toEqual(['everyone']);
  expect(await outputsOf(workflowId)).toEqual({ c1: 'found everyone' });
  expect((await runner.audit(workflowId)).map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['c1', 'approved', 'ann'],
  ]);
});

test('ask, rejected: the call never runs and the model hears the rejection', async () => {
  const workflowId = newId('tool-guard-ask-no');
  h.model.script(workflowId, [call('everyone', 'c1'), { text: 'understood' }]);
  const paused = await runner.run('guarded-lookup', 'export', { workflowId });
  const done = await runner.run(
    'guarded-lookup',
    paused.toState().reject('c1', { approver: 'ann', message: 'No bulk exports.' }),
  );
  expect(done.finalOutput).toBe('understood');
  expect(runsOf(workflowId)).toEqual([]);
  expect(await outputsOf(workflowId)).toEqual({ c1: 'No bulk exports.' });
});

test('rejectContent: the tool does not run, the model gets the message, and the run goes on', async () => {
  const workflowId = newId('tool-guard-reject');
  h.model.script(workflowId, [call('secrets', 'c1'), call('carol', 'c2'), { text: 'done' }]);
  const done = await runner.run('guarded-lookup', 'look', { workflowId });
  expect(done.finalOutput).toBe('done');
  expect(runsOf(workflowId)).toEqual(['carol']);
  expect(await outputsOf(workflowId)).toEqual({ c1: 'Lookups of secrets are refused.', c2: 'found carol' });
});

test('throwException on an input guardrail: the run fails as ToolInputGuardrailTripwireTriggered, the call never ran', async () => {
  const workflowId = newId('tool-guard-throw');
  h.model.script(workflowId, [call('drop table', 'c1'), { text: 'never' }]);
  await expect(runner.run('guarded-lookup', 'look', { workflowId })).rejects.toMatchObject({
    name: 'ToolInputGuardrailTripwireTriggered',
    type: 'ToolInputGuardrailTripwireTriggered',
  });
  expect(runsOf(workflowId)).toEqual([]);
  expect(await failureDetails(workflowId)).toEqual({
    guardrail: 'no_bulk_export',
    tool: 'lookup',
    outputInfo: { matched: 'sql' },
  });
  expect((await runner.describe(workflowId)).status).toBe('Failed');
});

test('an output guardrail rewrites what the model sees; throwException on it fails the run', async () => {
  const workflowId = newId('tool-guard-output');
  h.model.script(workflowId, [call('alice', 'c1'), { text: 'done' }]);
  expect((await runner.run('guarded-lookup', 'look', { workflowId })).finalOutput).toBe('done');
  expect(runsOf(workflowId)).toEqual(['alice']);
  expect(await outputsOf(workflowId)).toEqual({ c1: 'The result held a card number and was withheld.' });

  const failing = newId('tool-guard-output-throw');
  h.model.script(failing, [call('bob', 'c1'), { text: 'never' }]);
  await expect(runner.run('guarded-lookup', 'look', { workflowId: failing })).rejects.toMatchObject({
    name: 'ToolOutputGuardrailTripwireTriggered',
    type: 'ToolOutputGuardrailTripwireTriggered',
  });
  expect(runsOf(failing)).toEqual(['bob']); // it ran once: the tripwire is not retried
  expect(await failureDetails(failing)).toEqual({
    guardrail: 'no_card_numbers',
    tool: 'lookup',
    outputInfo: { found: 'PANIC' },
  });
});
