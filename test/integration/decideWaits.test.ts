// Runner.run(state) resumes a run with one update: `decide` sent with waitForPause applies the decisions and answers
// at the run's next pause or its end (patch countersign-decide-waits). Counted on the run's history against the two
// updates the library sent before (decide, then nextPause), on the same scripted run; the approved tool runs once.
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { decideUpdate } from '../../contract/messages';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(180_000);

const { EventType } = temporal.api.enums.v1;
const shipped: string[] = [];
const ship = defineTool({
  name: 'ship',
  description: 'Ship an order',
  parameters: z.object({ order: z.string() }),
  needsApproval: true,
  // Slow enough that the older path's nextPause always arrives while the tool runs (its own workflow task, counted).
  execute: async ({ order }) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    shipped.push(order);
    return `shipped ${order}`;
  },
});
const agent = defineAgent({ name: 'shipper-waits', instructions: 'test', tools: [ship] });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([agent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(() => h?.close());

/** A run paused at one `ship` call (order `workflowId`), approved by `resume`; what its history gained from the pause on. */
async function resumed(prefix: string, resume: (r: Runner, state: ReturnType<Paused['toState']>) => Promise<unknown>) {
  const workflowId = newId(prefix);
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'ship', arguments: { order: workflowId }, callId: 's1' }] },
    { text: 'shipped' },
  ]);
  const paused = await runner.run('shipper-waits', 'Ship it', { workflowId });
  expect(paused.status).toBe('AwaitingApproval');
  const handle = h.client.workflow.getHandle(workflowId);
  const before = (await handle.fetchHistory()).events!.length;
  const answer = await resume(runner, paused.toState().approve('s1', { approver: 'ann' }));
  const all = (await handle.fetchHistory()).events!;
  const events = all.slice(before);
  const count = (type: temporal.api.enums.v1.EventType) => events.filter((e) => e.eventType === type).length;
  const accepted = events.flatMap(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? [],
  );
  return {
    workflowId,
    answer,
    accepted,
    updates: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
    tasks: count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
    // Patch markers over the whole run, and the TemporalChangeVersion upserts that come with them.
    markers: all.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
    changeVersions: all.filter(
      (e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
    ).length,
  };
}
type Paused = Awaited<ReturnType<Runner['run']>>;

test('Runner.run(state) resumes with one update and one workflow task less than decide + nextPause', async () => {
  const one = await resumed('waits', (r, state) => r.run('shipper-waits', state));
  const two = await resumed('two-updates', async (r, state) => {
    await r.decide(state.workflowId, state.decisions); // what Runner.run(state) sent before waitForPause
    return r.nextPause(state.workflowId);
  });
  for (const run of [one, two]) expect(run.answer).toMatchObject({ status: 'Completed', finalOutput: 'shipped' });
  expect(one.accepted).toEqual(['decide']);
  expect(two.accepted).toEqual(['decide', 'nextPause']);
  expect(one.updates).toBe(1);
  expect(two.updates).toBe(2);
  expect(one.tasks).toBe(two.tasks - 1);
  // A new run's snapshot carries the worker's revision: publish-once and decide-waits need no marker (patches.ts).
  expect([one.markers, one.changeVersions, two.markers, two.changeVersions]).toEqual([0, 0, 0, 0]);
  // The approved tool ran once for each run, never again.
  expect(shipped.filter((o) => o === one.workflowId)).toEqual([one.workflowId]);
  expect(shipped.filter((o) => o === two.workflowId)).toEqual([two.workflowId]);
  console.log(
    `resume from the pause: decide+nextPause ${two.updates} updates, ${two.tasks} workflow tasks; ` +
      `decide with waitForPause ${one.updates} update, ${one.tasks} workflow tasks`,
  );
});

test('decide with waitForPause answers with the RunView at the next pause; without it, the DecideResult at once', async () => {
  const workflowId = newId('waits-view');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'ship', arguments: { order: 'a' }, callId: 'a1' }] },
    { toolCalls: [{ name: 'ship', arguments: { order: 'b' }, callId: 'b1' }] },
    { text: 'done' },
  ]);
  await runner.run('shipper-waits', 'Ship a then b', { workflowId });
  const handle = h.client.workflow.getHandle(workflowId);
  // Sent by hand, as any Temporal client can: the answer is the run's view at its next pause (b1 waits).
  const view = await handle.executeUpdate('decide', {
    args: [{ decisions: [{ callId: 'a1', decision: 'approve', approver: 'ann' }], waitForPause: true }],
  });
  expect(view).toMatchObject({ status: 'AwaitingApproval', pending: [expect.objectContaining({ callId: 'b1' })] });
  expect(shipped).toContain('a');
  // Without the field, decide answers as in 1.0.
  const plain = await handle.executeUpdate(decideUpdate, {
    args: [{ decisions: [{ callId: 'b1', decision: 'reject' }] }],
  });
  expect(plain).toEqual({
    applied: [expect.objectContaining({ callId: 'b1', outcome: 'rejected' })],
    stillPending: [],
  });
  expect((await runner.nextPause(workflowId)).status).toBe('Completed');
  expect(shipped.filter((o) => o === 'a' || o === 'b')).toEqual(['a']);
});
