// One workflow task's jobs split over two activations (what the worker-crash suite hit, test/support/splitTask.ts):
// a worker applies a model result to answer a query and later runs the signals deciding its calls as an activation
// of their own; replay gives them in one, signals first. The run's commands must not depend on the split, or the
// next worker to replay the run fails every task with a nondeterminism error.
import { Worker } from '@temporalio/worker';
import { type RunSnapshot } from '../../contract/runViews';
import { loadDevConfig } from '../../temporal.config';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testLedgerUrl } from '../support/ledgerFile';
import { splitDecisionTask } from '../support/splitTask';

jest.setTimeout(120_000);

let h: Harness;
let ledgerUrl: string;
beforeAll(async () => {
  ledgerUrl = testLedgerUrl();
  h = await startHarness({ workerAtStart: false, ledgerUrl });
});
afterAll(async () => h?.close());

test('a model result and the decisions for its calls, split over two activations of one task, replay', async () => {
  const workflowId = newId('split');
  const handle = await splitDecisionTask(h, workflowId, ledgerUrl);
  const result = (await handle.result()) as RunSnapshot;
  expect(result.status).toBe('Completed');
  expect(result.finalOutput).toBe('done');

  // The split happened: the task holding the model result and the signals was the sticky one that timed out,
  // after the query had named the calls; the worker that ran it published each decision on its own.
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const kinds = events.map((e) =>
    e.activityTaskCompletedEventAttributes
      ? 'completed'
      : e.workflowExecutionSignaledEventAttributes
        ? 'signal'
        : e.workflowTaskTimedOutEventAttributes
          ? 'timed-out'
          : e.workflowTaskStartedEventAttributes
            ? 'task'
            : e.workflowTaskCompletedEventAttributes
              ? 'task-completed'
              : e.upsertWorkflowSearchAttributesEventAttributes
                ? 'upsert'
                : e.activityTaskScheduledEventAttributes
                  ? `${e.activityTaskScheduledEventAttributes.activityType?.name}`
                  : '',
  );
  const first = kinds.indexOf('completed');
  const task = kinds.indexOf('task', first);
  expect(kinds.slice(first, task).filter(Boolean)).toEqual(['completed', 'signal', 'signal', 'timed-out']);
  const done = events[kinds.indexOf('task-completed', task)]!.eventId!.toString();
  // Its commands: the ledger's write and waiting on two calls, on one, on none, then the approved tool.
  const commands = events.flatMap((e, i) => {
    const by = e.activityTaskScheduledEventAttributes ?? e.upsertWorkflowSearchAttributesEventAttributes;
    return by?.workflowTaskCompletedEventId?.toString() === done ? [kinds[i]] : [];
  });
  expect(commands).toEqual(['recordLedger', 'upsert', 'upsert', 'upsert', 'runTool']);
  // And the run replays as it ran.
  await Worker.runReplayHistory({ workflowBundle: { codePath: loadDevConfig().test.bundle! } }, history, workflowId);
});
