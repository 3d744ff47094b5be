// Predicates fail closed, everywhere, one way (activities/predicateAnswers.ts), on a dev server with the scripted
// model: a needsApproval predicate of a core tool, of an @openai/agents tool() (countersign/openai-agents) and of an
// AI SDK tool() (countersign/ai-sdk) that answers 1, 'yes', 'no', {}, null, throws, rejects or hangs past the
// worker's limit (COUNTERSIGN_PREDICATE_TIMEOUT, lowered to 1 s here; 10 s by default) asks a person: the pending call
// and its audit entry say why in one line. Only a call the predicate answers false runs unasked; a rejected call
// never runs. A core tool's input guardrail that answers what it may not asks a person the same way.
import { Agent as SdkAgent, tool as sdkTool } from '@openai/agents';
import { tool as aiTool } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools } from '../../adapters/aiSdk';
import { fromOpenAIAgents } from '../../adapters/openaiAgents';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { productEnvSchema } from '../../temporal.config';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

/** What each call's predicate answers, by the call's `answer` argument. */
const ANSWERS: Record<string, () => unknown> = {
  one: () => 1,
  yes: () => 'yes',
  no: () => 'no',
  object: () => ({}),
  null: () => null,
  throws: () => {
    throw new Error('policy service down');
  },
  rejects: () => Promise.reject(new Error('quota exceeded')),
  hangs: () => new Promise(() => undefined), // never answers: stands for the 60 s hang
  false: () => false,
};
/** Why a person is asked, as the pending call and the audit say it. */
const WHY: Record<string, string> = {
  one: 'needsApproval answered 1, not a boolean: a person decides',
  yes: "needsApproval answered 'yes', not a boolean: a person decides",
  no: "needsApproval answered 'no', not a boolean: a person decides",
  object: 'needsApproval answered {}, not a boolean: a person decides',
  null: 'needsApproval answered null, not a boolean: a person decides',
  throws: 'needsApproval threw: policy service down: a person decides',
  rejects: 'needsApproval threw: quota exceeded: a person decides',
  hangs: 'needsApproval did not answer within 1s: a person decides',
};
const answerOf = (answer: string) => ANSWERS[answer]!();

const ran: string[] = [];
const params = z.object({ answer: z.string() });
const runs =
  (who: string) =>
  async ({ answer }: { answer: string }) => (ran.push(`${who}:${answer}`), 'done');

const core = defineAgent({
  name: 'pf-core',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'act',
      description: 'Act',
      parameters: params,
      needsApproval: (_ctx, { answer }) => answerOf(answer) as never,
      execute: runs('core'),
    }),
    defineTool({
      name: 'vet',
      description: 'Act after a check',
      parameters: params,
      inputGuardrails: [{ name: 'vetting', type: 'tool_input', run: () => 'yes' as never }],
      execute: runs('vet'),
    }),
  ],
});
const openai = fromOpenAIAgents(
  new SdkAgent({
    name: 'pf-openai',
    instructions: 'test',
    tools: [
      sdkTool({
        name: 'act',
        description: 'Act',
        parameters: params,
        needsApproval: async (_rc, { answer }) => answerOf(answer) as never,
        execute: runs('openai'),
      }),
    ],
  }),
);
const aiSdk = defineAgent({
  name: 'pf-ai',
  instructions: 'test',
  tools: fromAiSdkTools({
    act: aiTool({
      description: 'Act',
      inputSchema: params,
      needsApproval: async ({ answer }) => answerOf(answer) as never,
      execute: runs('ai'),
    }),
  }),
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([core, ...openai, aiSdk]), predicateTimeoutMs: 1_000 });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const CASES = Object.keys(ANSWERS);

test('the limit is declared once, 10s by default', () => {
  const declared = productEnvSchema.shape.COUNTERSIGN_PREDICATE_TIMEOUT;
  expect(declared.parse(undefined)).toBe('10s');
  expect(declared.description).toMatch(/a person decides/);
});

test.each([
  ['pf-core', 'core'],
  ['pf-openai', 'openai'],
  ['pf-ai', 'ai'],
])('%s: every answer but false asks a person, and the audit says why', async (agent, who) => {
  const workflowId = newId(`predicates-${who}`);
  const calls = CASES.map((answer) => ({ name: 'act', arguments: { answer }, callId: `c_${answer}` }));
  h.model.script(workflowId, [{ toolCalls: calls }, { text: 'done' }]);
  const paused = await runner.run(agent, 'go', { workflowId });

  const pending = await runner.pending(workflowId);
  expect(Object.fromEntries(pending.map((p) => [p.callId, p.askedBecause]))).toEqual(
    Object.fromEntries(Object.entries(WHY).map(([answer, why]) => [`c_${answer}`, why])),
  );
  expect(ran.filter((r) => r.startsWith(`${who}:`))).toEqual([`${who}:false`]); // only false ran unasked

  const state = paused.toState();
  for (const i of paused.interruptions) state.reject(i, { approver: 'ann' });
  expect((await runner.run(agent, state)).finalOutput).toBe('done');
  const audit = await runner.audit(workflowId);
  expect(Object.fromEntries(audit.map((a) => [a.callId, [a.decision, a.approver, a.askedBecause]]))).toEqual(
    Object.fromEntries(Object.entries(WHY).map(([answer, why]) => [`c_${answer}`, ['rejected', 'ann', why]])),
  );
  expect(ran.filter((r) => r.startsWith(`${who}:`))).toEqual([`${who}:false`]); // nothing rejected ever ran
});

test("a core tool's input guardrail that answers what it may not asks a person, saying why", async () => {
  const workflowId = newId('predicates-guardrail');
  h.model.script(workflowId, [{ toolCalls: [{ name: 'vet', arguments: { answer: 'x' }, callId: 'g1' }] }]);
  await runner.run('pf-core', 'go', { workflowId });
  const [p] = await runner.pending(workflowId);
  expect(p).toMatchObject({
    callId: 'g1',
    guardrail: { name: 'vetting', stage: 'tool_input' },
    askedBecause:
      "tool input guardrail vetting answered 'yes', not { behavior: { type: 'allow', 'rejectContent', 'throwException' or 'ask' } }: a person decides",
  });
  expect(ran).not.toContain('vet:x');
});
