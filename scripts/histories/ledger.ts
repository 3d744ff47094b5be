// Replay-corpus scenarios of patch countersign-ledger: a worker that keeps an approvals ledger (a SQLite file of its
// own), whose runs hand their audit entries and pending calls to the recordLedger activity, one write in flight at
// a time (workflows/ledgerWriter.ts), and whose reviews workflow hands it each review (workflows/reviewsLedger.ts).
import type { WorkflowHandle } from '@temporalio/client';
import { Runner, reviewCall } from '../../client';
import { eventually } from '../../test/support/fixtures';
import type { Harness } from '../../test/support/harness';
import { budget, ledgerRegistry, refund, tempLedgerFile } from '../../test/support/ledgerShop';
import { approveSignal, rejectSignal, runStateQuery } from '../../contract/messages';
import { email, onOwnHarness, startRun, untilClosed, untilPending, type Scenarios } from './common';

const onLedgerHarness = (body: (l: Harness, runner: Runner) => Promise<void>) =>
  onOwnHarness((l) => body(l, new Runner(l.client, { taskQueue: l.taskQueue })), {
    registry: ledgerRegistry(),
    ledgerUrl: tempLedgerFile(),
  });

/** Until the run waits quietly (its request record written), as a person's decision finds it. */
const untilQuiet = (handle: WorkflowHandle) =>
  eventually(async () => ((await handle.describe()).raw.pendingActivities?.length ? undefined : true));

export const ledgerScenarios: Scenarios = {
  // An approved and a rejected call, a quorum of two and an audit-only call that ran at once.
  'ledger-decisions': async (_h, _runner, id) => {
    await onLedgerHarness(async (l, runner) => {
      l.model.script(id, [{ toolCalls: [email(1), email(2), budget(9, 'q1'), refund(5, 'r1')] }, { text: 'done' }]);
      await runner.run('ledger-shop', 'go', { workflowId: id });
      await runner.decide(id, [
        { callId: 'm1', decision: 'approve', approver: 'ann' },
        { callId: 'm2', decision: 'reject', approver: 'ann', message: 'no' },
        { callId: 'q1', decision: 'approve', approver: 'ann' },
      ]);
      await runner.decide(id, [{ callId: 'q1', decision: 'approve', approver: 'bob' }]);
      await l.client.workflow.getHandle(id).result();
    });
  },
  // Decisions on both sides of continue-as-new boundaries: each continuation carries the ledger's confirmed cursor.
  'ledger-continued-as-new': async (_h, _runner, id) => {
    await onLedgerHarness(async (l, runner) => {
      l.model.script(id, [{ toolCalls: [email(1), email(2)] }, { toolCalls: [email(3)] }, { text: 'done' }]);
      await startRun(l, id, { agent: 'ledger-shop', input: 'go', continueAsNewAfterEvents: 12 });
      const handle = l.client.workflow.getHandle(id);
      await untilPending(handle, 2);
      await runner.decide(id, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
      await runner.decide(id, [{ callId: 'm2', decision: 'reject', approver: 'bob' }]);
      await untilPending(handle, 1);
      await runner.decide(id, [{ callId: 'm3', decision: 'approve', approver: 'ann' }]);
      await handle.result();
    });
  },
  // Patch ledgerRides (revision 5): writes ride the run's own activities. m1's approval rides its runTool; m2's
  // rejection and r1's audit (it ran at once) ride the next model turns; the pause's request records go by
  // recordLedger. Decided by signals, as a person's decision reaches a run that waits quietly.
  'ledger-rides': async (_h, _runner, id) => {
    await onLedgerHarness(async (l) => {
      l.model.script(id, [
        { toolCalls: [email(1)] },
        { toolCalls: [email(2)] },
        { toolCalls: [refund(5, 'r1')] },
        { text: 'done' },
      ]);
      await startRun(l, id, { agent: 'ledger-shop', input: 'go' });
      const handle = l.client.workflow.getHandle(id);
      await untilPending(handle, 1);
      await untilQuiet(handle);
      await handle.signal(approveSignal, { callId: 'm1', approver: 'ann' });
      await untilPending(handle, 1);
      await untilQuiet(handle);
      await eventually(async () =>
        (await handle.query(runStateQuery)).pending[0]?.callId === 'm2' ? true : undefined,
      );
      await handle.signal(rejectSignal, { callId: 'm2', approver: 'bob', message: 'no' });
      await handle.result();
    });
  },
  // ledgerRides: a run cancelled while m1 waits writes its last entries (m1 cancelled, nothing pending, closed) in a
  // local activity of its last workflow task.
  'ledger-rides-cancelled': async (_h, _runner, id) => {
    await onLedgerHarness(async (l) => {
      l.model.script(id, [{ toolCalls: [email(1)] }, { text: 'done' }]);
      await startRun(l, id, { agent: 'ledger-shop', input: 'go' });
      const handle = l.client.workflow.getHandle(id);
      await untilPending(handle, 1);
      await handle.cancel();
      await untilClosed(l, id);
    });
  },
  // The reviews workflow (this scenario's id) hands a review of an audit-only call to the ledger.
  'ledger-reviews': async (_h, _runner, id) => {
    await onLedgerHarness(async (l, runner) => {
      const run = `${id}-run`;
      l.model.script(run, [{ toolCalls: [refund(700, 'r1')] }, { text: 'done' }]);
      await runner.run('ledger-shop', 'go', { workflowId: run });
      await reviewCall(
        l.client,
        l.taskQueue,
        { workflowId: run, callId: 'r1', verdict: 'flagged', note: 'too large', reviewer: 'ann' },
        { workflowId: id },
      );
      // Recorded once the ledger confirmed the review (the activity's completion is in history).
      await eventually(async () => {
        const { events } = await l.client.workflow.getHandle(id).fetchHistory();
        return events?.some((e) => e.activityTaskCompletedEventAttributes) ? true : undefined;
      });
    });
  },
};
