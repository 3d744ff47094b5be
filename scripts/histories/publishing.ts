// Replay-corpus scenarios: what a run publishes — notifications with and without a webhook, search attributes, the
// parent's reports, published once per condition check (scripts/record-histories.ts records them).
import { Runner } from '../../client';
import { approveSignal, rejectSignal } from '../../contract/messages';
import { email, onOwnHarness, startRun, untilPending, type Scenarios } from './common';
import { scriptNestedContractHelper, startWithRefusedSubRunEdit } from './subRuns';

export const publishingScenarios: Scenarios = {
  // No webhook on the worker: the run logs its notifications itself and schedules no notify activity.
  'quiet-notifications': async (_h, _runner, id) => {
    await onOwnHarness(async (quiet) => {
      const r = new Runner(quiet.client, { taskQueue: quiet.taskQueue });
      quiet.model.script(id, [{ toolCalls: [email(1)] }, { text: 'done' }]);
      const paused = await r.run('email-assistant', 'mail', {
        workflowId: id,
        approvalTimeout: '1h',
        remindEvery: '20m',
      });
      await r.run('email-assistant', paused.toState().approve('m1', { approver: 'ann' }));
    });
  },
  // Fast mode (model calls as local activities), no webhook (notifications logged, as the snapshot says), and the
  // client library's start search attributes (the run does not write them again).
  'fast-mode': async (_h, _runner, id) => {
    await onOwnHarness(
      async (fast) => {
        const r = new Runner(fast.client, { taskQueue: fast.taskQueue });
        fast.model.script(id, [
          { toolCalls: [email(1), { ...email(2), arguments: { to: 'bob@example.com', subject: 'S2', body: 'b' } }] },
          { text: 'done' },
        ]);
        const paused = await r.run('email-assistant', 'mail', { workflowId: id, approvalTimeout: '1h' });
        await r.run(
          'email-assistant',
          paused.toState().approve('m1', { approver: 'ann' }).reject('m2', { message: 'no' }),
        );
      },
      { fastMode: true },
    );
  },
  // Published once per condition check (patch countersign-publish-once): a sub-run's reports to its parent, a
  // decision it refuses and passes back up, approval_decided to the webhook, then the approval that completes both.
  'publish-once': async (h, runner, id) => {
    scriptNestedContractHelper(h, id);
    await startWithRefusedSubRunEdit(runner, id);
    await runner.run('contract-helper', (await runner.nextPause(id)).toState().approve('c2', { approver: 'ann' }));
  },
  // The same patch on a run whose call waits on timers (reminders, escalation) and times out, then a second call rejected.
  'publish-once-timers': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { toolCalls: [email(2), email(3)] }, { text: 'gave up' }]);
    const run = {
      agent: 'email-assistant',
      input: 'go',
      approvalTimeout: '3s',
      remindEvery: '1s',
      escalateAfter: '2s',
    };
    await startRun(h, id, { ...run, onTimeout: 'reject' });
    const handle = h.client.workflow.getHandle(id);
    await untilPending(handle, 2);
    await handle.signal(rejectSignal, { callId: 'm2', message: 'no' });
    await handle.signal(approveSignal, { callId: 'm3', approver: 'ann' });
    await handle.result();
  },
};
