// A decision that reaches the run in the same workflow task as the model result that books the call it names (its
// sender learned the call id early, e.g. from a query answered with that result) is applied, not ignored: the worker
// stops taking workflow tasks while the model call finishes, the decision is signalled, and the next worker's first
// workflow task holds both.
import { Runner } from '../../client';
import { approveSignal } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  // On shutdown the worker stops polling at once but lets a running activity finish (here: the model call).
  h = await startHarness({ workerOptions: { shutdownGraceTime: '20s' } });
});
afterAll(async () => h?.close());

test('a decision in the same workflow task as the call it names is applied once', async () => {
  const workflowId = newId('race');
  const email = {
    name: 'send_email',
    arguments: { to: 'alice@example.com', subject: 'Hi', body: 'b' },
    callId: 'c-race',
  };
  h.model.script(workflowId, [{ toolCalls: [email], delayMs: 2000 }, { text: 'done' }]);
  const handle = await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ agent: 'email-assistant', input: 'mail alice' }],
  });
  await eventually(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined));
  await h.stopWorker(); // the model call completes during the drain; its workflow task waits for a worker
  await handle.signal(approveSignal, { callId: 'c-race', approver: 'ann' });
  await h.restartWorker();
  const result = (await handle.result()) as RunSnapshot;
  expect(result.status).toBe('Completed');
  const audit = await new Runner(h.client, { taskQueue: h.taskQueue }).audit(workflowId);
  expect(audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([['c-race', 'approved', 'ann']]);
  // The signal and the model result were in one workflow task: the signal came after the result in history.
  const types = ((await handle.fetchHistory()).events ?? []).map((e) =>
    e.activityTaskCompletedEventAttributes
      ? 'completed'
      : e.workflowExecutionSignaledEventAttributes
        ? 'signal'
        : e.workflowTaskStartedEventAttributes
          ? 'task'
          : '',
  );
  const firstCompleted = types.indexOf('completed');
  expect(types.slice(firstCompleted, types.indexOf('task', firstCompleted))).toContain('signal');
});
