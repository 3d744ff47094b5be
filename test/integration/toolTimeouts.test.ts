// Per-tool timeouts (defineTool timeout, errorText): an idempotent tool past its timeout on every attempt fails to
// the model, not the run: the model gets the tool's errorText, else "Tool X did not finish within 1s", and the run
// goes on; a tool that is not idempotent becomes `uncertain`, as with the run's toolTimeout. errorText also writes
// what the model sees when the tool throws. Against the scripted model and a real Temporal dev server.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const attempts: string[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const slow = (name: string, extra: object = {}) =>
  defineTool({
    name,
    description: 'Slow unless asked to be quick',
    parameters: z.object({ ms: z.number() }),
    timeout: '1s',
    ...extra,
    execute: async ({ ms }, ctx) => {
      attempts.push(`${ctx.runId}:${ctx.callId}`);
      if (ms < 0) throw new Error('the index is offline');
      await sleep(ms);
      return `waited ${ms}ms`;
    },
  });
const agent = defineAgent({
  name: 'timed-tools',
  instructions: 'test',
  tools: [
    slow('slow_search'),
    slow('slow_report', {
      errorText: (error: { kind: string; message: string }, ctx: { toolName: string; context: { locale?: string } }) =>
        `${ctx.toolName} (${error.kind}, ${ctx.context.locale}): ${error.message}. Try a narrower report.`,
    }),
    slow('slow_charge', { idempotent: false }),
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([agent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const attemptsOf = (id: string, callId: string) => attempts.filter((a) => a === `${id}:${callId}`).length;
const outputsOf = async (id: string) =>
  Object.fromEntries(
    (await runner.describe(id)).items.flatMap((i) => (i.type === 'function_call_output' ? [[i.callId, i.output]] : [])),
  );

test('past its timeout on every attempt, an idempotent tool fails to the model (default text or errorText) and the run goes on', async () => {
  const workflowId = newId('tool-timeout');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'slow_search', arguments: { ms: 3000 }, callId: 's1' },
        { name: 'slow_report', arguments: { ms: 3000 }, callId: 'r1' },
        { name: 'slow_search', arguments: { ms: 10 }, callId: 'q1' },
        { name: 'slow_report', arguments: { ms: -1 }, callId: 'e1' },
      ],
    },
    { text: 'told' },
  ]);
  const done = await runner.run('timed-tools', 'search', { workflowId, context: { locale: 'pt' } });
  expect(done.finalOutput).toBe('told');
  expect(await outputsOf(workflowId)).toEqual({
    s1: 'Tool slow_search did not finish within 1s.',
    r1: 'slow_report (timed_out, pt): Tool slow_report did not finish within 1s. Try a narrower report.',
    q1: 'waited 10ms',
    e1: 'slow_report (tool_failed, pt): the index is offline. Try a narrower report.',
  });
  // Each timed-out call was tried as often as the tool activity's retry policy allows (5), the quick ones once.
  expect([attemptsOf(workflowId, 's1'), attemptsOf(workflowId, 'r1')]).toEqual([5, 5]);
  expect([attemptsOf(workflowId, 'q1'), attemptsOf(workflowId, 'e1')]).toEqual([1, 1]);
  // The activity ran under the tool's own timeout.
  const { events } = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = events!.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
  expect(
    scheduled.filter((a) => a.activityType?.name === 'runTool').map((a) => Number(a.startToCloseTimeout?.seconds)),
  ).toEqual([1, 1, 1, 1]);
});

test('a tool that is not idempotent becomes uncertain past its timeout, as with the run-wide one', async () => {
  const workflowId = newId('tool-timeout-once');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'slow_charge', arguments: { ms: 3000 }, callId: 'c1' }] },
    { text: 'ok' },
  ]);
  const paused = await runner.run('timed-tools', 'charge', { workflowId });
  const pending = await eventually(async () => (await runner.pending(workflowId)).find((p) => p.kind === 'uncertain'));
  expect(paused.status).toBe('AwaitingApproval');
  expect(pending).toMatchObject({
    callId: 'c1',
    uncertainBecause: 'its attempt timed out (it did not finish in time) after it started',
  });
  expect(attemptsOf(workflowId, 'c1')).toBe(1);
  await runner.decide(workflowId, [{ callId: 'c1', decision: 'done', result: 'charged by hand', approver: 'ann' }]);
  expect((await h.client.workflow.getHandle(workflowId).result()).finalOutput).toBe('ok');
});
