// Instructions from the run's context: an agent's instructions function is called in the model activity before each
// turn, with the run's plain context, the agent's name and the workflow id, and what it returns reaches the model as the
// instructions (Responses API) or the system message (Chat Completions), in fast mode's local activity too. A function
// that throws fails the run at once (InstructionsFailed, one line naming the agent; the model is never called). The
// snapshot records only that the instructions are dynamic.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { RunFailedError, Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { cliEnv, countersign, countersignExit } from '../support/countersignCli';

jest.setTimeout(120_000);

const calls: Array<{ agentName: string; workflowId: string }> = [];
const tenantDesk = defineAgent({
  name: 'tenant-desk',
  instructions: async ({ context, agentName, workflowId }) => {
    calls.push({ agentName, workflowId });
    return `You answer for tenant ${String(context.tenant)} in locale ${String(context.locale)}.`;
  },
  tools: [
    defineTool({
      name: 'lookup_plan',
      description: "Look up the tenant's plan",
      parameters: z.object({}),
      needsApproval: false,
      execute: async () => 'plan: gold',
    }),
  ],
});
const broken = defineAgent({
  name: 'broken-instructions',
  instructions: () => {
    throw new Error('no tenant in context');
  },
  tools: [],
});
const registry = () => new AgentRegistry([...demoAgents, tenantDesk, broken]);

let responses: Harness;
let chat: Harness;
let fast: Harness;
beforeAll(async () => {
  [responses, chat, fast] = await Promise.all([
    startHarness({ registry: registry() }),
    startHarness({ registry: registry(), api: 'chat' }),
    startHarness({ registry: registry(), fastMode: true }),
  ]);
});
afterAll(async () => Promise.all([responses?.close(), chat?.close(), fast?.close()]));

/** What each of the run's model requests carried as instructions: Responses' `instructions`, Chat's system message. */
const instructionsSent = (h: Harness, workflowId: string) =>
  h.model.requests
    .filter((r) => r.runId === workflowId)
    .map((r) =>
      r.api === 'responses'
        ? r.body.instructions
        : (r.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'system')?.content,
    );

test('the snapshot records that the instructions are dynamic, not the function', () => {
  expect(tenantDesk.snapshot()).toMatchObject({ instructions: '', dynamicInstructions: true });
  expect(demoAgents[0]!.snapshot()).not.toHaveProperty('dynamicInstructions');
  expect(() => defineAgent({ name: 'bad', instructions: 42 as unknown as string, tools: [] })).toThrow(
    'agent bad: instructions must be a string or a function of ({ context, agentName, workflowId }) returning one, not number',
  );
});

test.each([
  ['responses', () => responses],
  ['chat', () => chat],
  ['fast mode', () => fast],
])('%s: instructions built from the run context reach the model, every turn', async (_api, harness) => {
  const h = harness();
  const workflowId = newId('tenant');
  h.model.script(workflowId, [{ toolCalls: [{ name: 'lookup_plan', arguments: {} }] }, { text: 'You are on gold.' }]);
  const result = await new Runner(h.client, { taskQueue: h.taskQueue }).run('tenant-desk', 'Which plan am I on?', {
    workflowId,
    context: { tenant: 'acme', locale: 'fr-CH' },
  });
  expect(result.finalOutput).toBe('You are on gold.');
  const text = 'You answer for tenant acme in locale fr-CH.';
  expect(instructionsSent(h, workflowId)).toEqual([text, text]);
  expect(calls.filter((c) => c.workflowId === workflowId)).toEqual([
    { agentName: 'tenant-desk', workflowId },
    { agentName: 'tenant-desk', workflowId },
  ]);
});

test('an instructions function that throws fails the run in one line, without retries or a model call', async () => {
  const workflowId = newId('broken');
  const err = await new Runner(responses.client, { taskQueue: responses.taskQueue })
    .run('broken-instructions', 'Hello', { workflowId })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as RunFailedError).type).toBe('InstructionsFailed');
  expect((err as Error).message).toBe(
    `run ${workflowId} failed: agent broken-instructions@1: its instructions function threw: no tenant in context`,
  );
  expect(responses.model.requests.filter((r) => r.runId === workflowId)).toHaveLength(0);
});

test('countersign start --context gives the run its context; --on-max-turns its turn-limit handler', async () => {
  const workflowId = newId('cli-context');
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'lookup_plan', arguments: {}, callId: 'p1' }] },
    { text: 'Gold, as asked.' },
  ]);
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: responses.taskQueue });
  const started = await countersign(
    [
      'start',
      'tenant-desk',
      'Which plan?',
      '--workflow-id',
      workflowId,
      '--context',
      '{"tenant":"acme","locale":"de"}',
    ].concat(['--max-turns', '1', '--on-max-turns', 'final_output', '--wait']),
    env,
  );
  expect(started.stdout).toContain('Gold, as asked.'); // the one turn allowed, then one more answer without tools
  expect(instructionsSent(responses, workflowId)).toEqual([
    'You answer for tenant acme in locale de.',
    'You answer for tenant acme in locale de.',
  ]);
  const bad = await countersignExit(['start', 'tenant-desk', 'x', '--context', '[1]'], env);
  expect(bad.stderr.trim()).toBe(
    `countersign: --context must be a JSON object, e.g. '{"tenant":"acme","locale":"de"}'`,
  );
});
