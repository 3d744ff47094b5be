// Replay-corpus scenarios: approvals and decisions on one run (scripts/record-histories.ts records them).
import { approveSignal, provideResultSignal, rejectSignal, runStateQuery } from '../../contract/messages';
import { eventually } from '../../test/support/fixtures';
import { splitDecisionTask, splitTaskCalls } from '../../test/support/splitTask';
import { ledger } from '../historyAgents';
import { email, onOwnHarness, startRun, type Scenarios } from './common';

export const approvalScenarios: Scenarios = {
  // Waiting for a person: the history ends mid-run, as a worker finds it after a restart.
  'paused-at-approval': async (h, runner, id) => {
    await runner.run('email-assistant', 'Send the report to alice and delete the draft record DR-42', {
      workflowId: id,
    });
  },
  'approved-and-rejected': async (h, runner, id) => {
    let r = await runner.run('email-assistant', 'Send the report to alice and delete the draft record DR-42', {
      workflowId: id,
    });
    const s = r.toState();
    for (const i of r.interruptions) {
      if (i.toolName === 'send_email') s.approve(i, { approver: 'ann' });
      else s.reject(i, { message: 'Deletion requires manager approval' });
    }
    r = await runner.run('email-assistant', s);
  },
  'signals-and-always-rules': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [email(1), { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' }] },
      { toolCalls: [email(2)] },
      { toolCalls: [{ name: 'delete_record', arguments: { record_id: 'R1' }, callId: 'd1' }] },
      { text: 'done' },
    ]);
    await runner.run('email-assistant', 'go', { workflowId: id });
    const handle = h.client.workflow.getHandle(id);
    await handle.signal(approveSignal, { callId: 'ghost' });
    await handle.signal(approveSignal, { callId: 'm1', alwaysApprove: true, approver: 'ann' });
    await eventually(async () =>
      (await handle.query(runStateQuery)).pending.some((p) => p.callId === 'd1') ? true : undefined,
    );
    await handle.signal(rejectSignal, { callId: 'd1', message: 'no' });
    await handle.result();
  },
  'invalid-calls': async (h, runner, id) => {
    h.model.script(id, [
      {
        toolCalls: [
          { name: 'nope', arguments: {}, callId: 'u1' },
          { name: 'send_email', arguments: { to: 5 }, callId: 'v1' },
        ],
      },
      { text: 'ok' },
    ]);
    await runner.run('email-assistant', 'go', { workflowId: id });
  },
  'edited-arguments-and-input': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { text: 'done' }]);
    const paused = await runner.run('email-assistant', 'go', { workflowId: id });
    await h.client.workflow.getHandle(id).signal(approveSignal, { callId: 'm1', editedArguments: { to: 5 } }); // ignored: invalid
    const state = paused.toState();
    state.addInput('Sign it from Bob.');
    state.approve('m1', { editedArguments: { to: 'fixed@example.com', subject: 'S1', body: 'b' } });
    await runner.run('email-assistant', state);
  },
  'input-external-audit-kinds': async (h, runner, id) => {
    h.model.script(id, [
      {
        toolCalls: [
          { name: 'book_meeting', arguments: { title: 'Sync' }, callId: 'b1' },
          { name: 'charge_card', arguments: { amount: 5 }, callId: 'x1' },
          { name: 'read_file', arguments: { path: '/a' }, callId: 'r1' },
        ],
      },
      { text: 'done' },
    ]);
    const paused = await runner.run('kinds-assistant', 'go', { workflowId: id });
    await h.client.workflow.getHandle(id).signal(provideResultSignal, { callId: 'x1', result: 'charged' });
    await runner.run('kinds-assistant', paused.toState().provideInput('b1', { time: '10:00' }));
  },
  'on-approval': async (h, runner, id) => {
    const refund = (amount: number, callId: string) => ({ name: 'refund', arguments: { amount }, callId });
    h.model.script(id, [{ toolCalls: [refund(50, 'a1'), refund(5000, 'a2'), refund(500, 'a3')] }, { text: 'done' }]);
    const paused = await runner.run('guarded-assistant', 'refunds', { workflowId: id });
    await runner.run('guarded-assistant', paused.toState().approve('a3', { approver: 'ann' }));
  },
  'hosted-mcp': async (h, runner, id) => {
    h.model.script(id, [
      {
        mcpApprovalRequests: [
          { id: 'mcpr_1', serverLabel: 'docs', name: 'fetch', arguments: { page: 'a' } },
          { id: 'mcpr_2', serverLabel: 'docs', name: 'delete', arguments: { page: 'b' } },
        ],
      },
      { text: 'done' },
    ]);
    const paused = await runner.run('hosted-docs', 'docs', { workflowId: id });
    await runner.run(
      'hosted-docs',
      paused.toState().approve('mcpr_1', { approver: 'ann' }).reject('mcpr_2', { message: 'no' }),
    );
  },
  // A decision signalled while no worker takes workflow tasks, after the model call that books the call it names
  // finished: both reach the run in one workflow task (the decision waits for the booking: 'decide-after-booking').
  'decision-in-booking-task': async (_h, _runner, id) => {
    await onOwnHarness(
      async (slow) => {
        slow.model.script(id, [{ toolCalls: [email(1)], delayMs: 2000 }, { text: 'done' }]);
        const handle = await startRun(slow, id, { agent: 'email-assistant', input: 'go' });
        await eventually(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined));
        await slow.stopWorker();
        await handle.signal(approveSignal, { callId: 'm1', approver: 'ann' });
        await slow.restartWorker();
        await handle.result();
      },
      { workerOptions: { shutdownGraceTime: '20s' } },
    );
  },
  // Decisions signalled before their calls are booked are held and applied one at a time, each published on its own
  // (patch heldDecisions, revision 4), the same whether the worker ran the model result and the signals in two
  // activations of one task (it had applied the result to answer a query: test/support/splitTask.ts) ...
  'split-task-decisions': async (_h, _runner, id) => {
    await onOwnHarness(async (own) => void (await (await splitDecisionTask(own, id)).result()), {
      workerAtStart: false,
    });
  },
  // ... or in one, as a worker that had not run the result does (and replay does).
  'held-decisions': async (_h, _runner, id) => {
    await onOwnHarness(
      async (slow) => {
        slow.model.script(id, [{ toolCalls: splitTaskCalls, delayMs: 2000 }, { text: 'done' }]);
        const handle = await startRun(slow, id, { agent: 'email-assistant', input: 'go' });
        await eventually(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined));
        await slow.stopWorker();
        await handle.signal(approveSignal, { callId: 'split-email', approver: 'ops' });
        await handle.signal(rejectSignal, { callId: 'split-delete', approver: 'ops', message: 'no' });
        await slow.restartWorker();
        await handle.result();
      },
      { workerOptions: { shutdownGraceTime: '20s' } },
    );
  },
  // Tools that are not idempotent (behind patch countersign-uncertain-calls): each call's attempt fails once it may
  // have run, so each is uncertain; a person retries one (update) and says the other ran (provideResult signal).
  'uncertain-calls': async (h, runner, id) => {
    h.model.script(id, [
      {
        toolCalls: [
          { name: 'deploy', arguments: { version: 'v2' }, callId: 'u1' },
          { name: 'charge', arguments: { amount: 5 }, callId: 'u2' },
        ],
      },
      { text: 'done' },
    ]);
    await runner.run('once-assistant', 'ship it', { workflowId: id });
    const handle = h.client.workflow.getHandle(id);
    const kinds = async () => (await handle.query(runStateQuery)).pending.map((p) => `${p.callId}:${p.kind}`).join(',');
    await eventually(async () => ((await kinds()) === 'u2:approval,u1:uncertain' ? true : undefined));
    await runner.decide(id, [{ callId: 'u2', decision: 'approve', approver: 'ann' }]);
    await eventually(async () => ((await kinds()) === 'u2:uncertain,u1:uncertain' ? true : undefined));
    await runner.decide(id, [{ callId: 'u1', decision: 'retry', approver: 'ann' }]);
    await handle.signal(provideResultSignal, {
      callId: 'u2',
      result: 'charged 5 (seen in the ledger)',
      approver: 'ann',
    });
    await handle.result();
  },
  // Tools with a fingerprint (behind patch countersign-stale-approvals): the ledger changes after the request, so
  // the approved pay waits again (approved a second time, it runs) and the approved refund is rejected (onStale).
  'stale-approvals': async (h, runner, id) => {
    h.model.script(id, [
      {
        toolCalls: [
          { name: 'pay', arguments: { amount: 5 }, callId: 'p1' },
          { name: 'refund', arguments: { amount: 3 }, callId: 'r1' },
        ],
      },
      { text: 'done' },
    ]);
    await runner.run('ledger-assistant', 'settle up', { workflowId: id });
    ledger.version += 1;
    await runner.decide(id, [
      { callId: 'p1', decision: 'approve', approver: 'ann' },
      { callId: 'r1', decision: 'approve', approver: 'ann' },
    ]);
    await eventually(async () => ((await runner.pending(id)).some((p) => p.stale) ? true : undefined));
    await runner.decide(id, [{ callId: 'p1', decision: 'approve', approver: 'ann' }]);
    await h.client.workflow.getHandle(id).result();
  },
};
