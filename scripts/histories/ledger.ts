// Replay-corpus scenarios of patch countersign-ledger: a worker that keeps an approvals ledger (a SQLite file of its
// own), whose runs hand their audit entries and pending calls to the recordLedger activity, one write in flight at
// a time (workflows/ledgerWriter.ts), and whose reviews workflow hands it each review (workflows/reviewsLedger.ts).
import { Runner, reviewCall } from '../../client';
import { eventually } from '../../test/support/fixtures';
import type { Harness } from '../../test/support/harness';
import { budget, ledgerRegistry, refund, tempLedgerFile } from '../../test/support/ledgerShop';
import { email, onOwnHarness, startRun, untilPending, type Scenarios } from './common';

const onLedgerHarness = (body: (l: Harness, runner: Runner) => Promise<void>) =>
  onOwnHarness((l) => body(l, new Runner(l.client, { taskQueue: l.taskQueue })), {
    registry: ledgerRegistry(),
    ledgerUrl: tempLedgerFile(),
  });

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
