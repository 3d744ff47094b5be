// One workflow task's jobs split over two activations (what the worker-crash suite hit): the worker that last ran
// the run dies while the model call is out; the call completes into a workflow task held on the dead worker's
// sticky queue; meanwhile a query reaches another worker, which applies the model result to answer it and keeps
// the run; the decisions are signalled; when the sticky task times out that worker gets it and runs the two
// signals as an activation of their own. Replay gives them to the run in one activation, signals first: the
// run's commands must not depend on the split, or the next worker to replay the run fails every task with a
// nondeterminism error.
import { Worker } from '@temporalio/worker';
import { approveSignal, pendingApprovalsQuery, rejectSignal } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { loadDevConfig } from '../../temporal.config';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testLedgerUrl } from '../support/ledgerFile';
import { spawnTs, type Spawned } from '../support/processes';

jest.setTimeout(120_000);

let h: Harness;
let doomed: Spawned | undefined;
beforeAll(async () => {
  h = await startHarness({ workerAtStart: false, ledgerUrl: testLedgerUrl() });
});
afterAll(async () => {
  doomed?.kill('SIGKILL');
  await h?.close();
});

test('a model result and the decisions for its calls, split over two activations of one task, replay', async () => {
  const workflowId = newId('split');
  // The dead worker's model call never answers; the retry (on the next worker) gets the demo's two calls.
  h.model.script(workflowId, [{ text: 'lost with its worker', delayMs: 60_000 }]);
  doomed = spawnTs('test/support/stickyWorkerProcess.ts', [], {
    ...process.env,
    COUNTERSIGN_TASK_QUEUE: h.taskQueue,
    OPENAI_BASE_URL: h.model.baseURL,
    COUNTERSIGN_TEST_STICKY_TIMEOUT: '10s',
  });
  await doomed.waitFor(/worker polling/, 90_000);
  const handle = await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [
      {
        agent: 'email-assistant',
        input: 'Send the report to alice and delete the draft record DR-1',
        modelTimeout: '3s',
      },
    ],
  });
  await eventually(() => (h.model.requests.some((r) => r.runId === workflowId) ? true : undefined), 30_000);
  doomed.kill('SIGKILL');
  await doomed.exited;
  // Asked now, the query waits on the dead worker's sticky queue (as long as its tasks would) and then goes to the
  // live worker, which by then has run the model call's retry: it applies that result to answer.
  const asked = handle.query(pendingApprovalsQuery);
  await h.restartWorker(); // runs the retry; its workflow task waits on the dead worker's sticky queue
  const pending = await asked;
  expect(pending.map((p) => p.toolName).sort()).toEqual(['delete_record', 'send_email']);
  await handle.signal(approveSignal, {
    callId: pending.find((p) => p.toolName === 'send_email')!.callId,
    approver: 'ops',
  });
  await handle.signal(rejectSignal, {
    callId: pending.find((p) => p.toolName === 'delete_record')!.callId,
    approver: 'ops',
    message: 'no',
  });
  const result = (await handle.result()) as RunSnapshot;
  expect(result.status).toBe('Completed');

  // The split happened: the task holding the model result and the signals was the sticky one that timed out,
  // and the query had been answered before it (the signals named the calls).
  const history = await handle.fetchHistory();
  const kinds = (history.events ?? []).map((e) =>
    e.activityTaskCompletedEventAttributes
      ? 'completed'
      : e.workflowExecutionSignaledEventAttributes
        ? 'signal'
        : e.workflowTaskTimedOutEventAttributes
          ? 'timed-out'
          : e.workflowTaskStartedEventAttributes
            ? 'task'
            : '',
  );
  const first = kinds.indexOf('completed');
  expect(kinds.slice(first, kinds.indexOf('task', first)).filter(Boolean)).toEqual([
    'completed',
    'signal',
    'signal',
    'timed-out',
  ]);
  // And the run replays as it ran.
  await Worker.runReplayHistory({ workflowBundle: { codePath: loadDevConfig().test.bundle! } }, history, workflowId);
});
