// One workflow task's jobs split over two activations, as the worker-crash suite met it: the worker that last ran
// the run (a process, stickyWorkerProcess.ts) is SIGKILLed while the model call is out; a query then waits on its
// dead sticky queue for as long as the run's tasks would, and goes to the harness's worker, which by then has run
// the model call's retry: that worker applies the result in an activation of its own to answer, and keeps the run.
// The decisions are signalled; when the task on the dead sticky queue times out, the same worker gets it and runs
// the signals as a second activation. Replay gives the run the result and the signals in one.
import type { WorkflowHandle } from '@temporalio/client';
import { approveSignal, pendingApprovalsQuery, rejectSignal } from '../../contract/messages';
import { eventually } from './fixtures';
import type { Harness } from './harness';
import { spawnTs } from './processes';

/** The model's calls: an email to approve and a deletion to reject. */
export const splitTaskCalls = [
  { name: 'send_email', arguments: { to: 'alice@example.com', subject: 'Report', body: 'b' }, callId: 'split-email' },
  { name: 'delete_record', arguments: { record_id: 'DR-1' }, callId: 'split-delete' },
];

/**
 * Runs email-assistant on `h` (started with workerAtStart false) up to its decisions, signalled after a query the
 * live worker answered ahead of the task that holds them; returns the run's handle. `ledgerUrl`: both workers'.
 */
export async function splitDecisionTask(h: Harness, workflowId: string, ledgerUrl = ''): Promise<WorkflowHandle> {
  // The doomed worker's model call never answers; the retry (on the harness's worker) gets the two calls.
  h.model.script(workflowId, [
    { text: 'lost with its worker', delayMs: 60_000 },
    { toolCalls: splitTaskCalls },
    { text: 'done' },
  ]);
  const doomed = spawnTs('test/support/stickyWorkerProcess.ts', [], {
    ...process.env,
    COUNTERSIGN_TASK_QUEUE: h.taskQueue,
    OPENAI_BASE_URL: h.model.baseURL,
    COUNTERSIGN_LEDGER_URL: ledgerUrl,
    COUNTERSIGN_TEST_STICKY_TIMEOUT: '10s',
  });
  try {
    await doomed.waitFor(/worker polling/, 90_000);
    const handle = await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ agent: 'email-assistant', input: 'Send the report to alice and delete DR-1', modelTimeout: '3s' }],
    });
    await eventually(() => (h.model.requests.some((r) => r.runId === workflowId) ? true : undefined), 30_000);
    doomed.kill('SIGKILL');
    await doomed.exited;
    const asked = handle.query(pendingApprovalsQuery);
    await h.restartWorker();
    const pending = await asked;
    if (pending.length !== 2) throw new Error(`expected the two calls pending, the query answered ${pending.length}`);
    await handle.signal(approveSignal, { callId: 'split-email', approver: 'ops' });
    await handle.signal(rejectSignal, { callId: 'split-delete', approver: 'ops', message: 'no' });
    return handle;
  } finally {
    doomed.kill('SIGKILL');
  }
}
