// Records real agentRun histories into test/histories/, the corpus CI replays (test/integration/replay.test.ts)
// so that a workflow change that is not guarded by patched() fails the build.
//
//   npx tsx scripts/record-histories.ts                 record every scenario (overwrites same-named files)
//   npx tsx scripts/record-histories.ts timed-out ...   record the named scenarios only
//
// Each scenario runs on a fresh local dev server with the real worker, activities and scripted model. The corpus
// was recorded on 1.0. Record a new scenario whenever the workflow gains behaviour (behind patched()); never
// re-record an old one after changing the workflow: the old file is the proof that runs recorded before the change
// still replay.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { Runner } from '../client';
import { approveSignal, provideResultSignal, rejectSignal, runStateQuery } from '../contract/messages';
import { HitlAgent, HitlPendingSince, HitlPendingTools, HitlStatus } from '../contract/searchAttributes';
import { eventually } from '../test/support/fixtures';
import { quietRuntime, startHarness, type Harness } from '../test/support/harness';
import { binaryPath, projectRoot } from '../test/support/toolchain';
import { startWebhookReceiver } from '../test/support/webhookReceiver';
import { signDecision } from '../client/signing/decisionSigning';
import { grant, revokeGrant } from '../client/grants/grantsClient';
import { useGrantUpdate } from '../contract/grantMessages';
import { historyRegistry, ledger, signingKey } from './historyAgents';

type Scenario = (h: Harness, runner: Runner, workflowId: string) => Promise<void>;

/** The corpus's standing grants: recorded by the 'granted-call-grants' scenario (its file's name is the workflow id). */
const GRANTS = { workflowId: 'granted-call-grants' };
const email = (n: number) => ({
  name: 'send_email',
  arguments: { to: `u${n}@example.com`, subject: `S${n}`, body: 'b' },
  callId: `m${n}`,
});

const scenarios: Record<string, Scenario> = {
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
  'timed-out-with-reminders': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { text: 'gave up' }]);
    await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: id,
      args: [
        {
          agent: 'email-assistant',
          input: 'go',
          approvalTimeout: '3s',
          remindEvery: '1s',
          escalateAfter: '2s',
          escalateTo: 'ops',
        },
      ],
    });
    await h.client.workflow.getHandle(id).result();
  },
  'continued-as-new': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1), email(2)] }, { text: 'done' }]);
    await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: id,
      args: [{ agent: 'email-assistant', input: 'go', continueAsNewAfterEvents: 12 }],
    });
    const handle = h.client.workflow.getHandle(id);
    await eventually(async () => ((await handle.query(runStateQuery)).pending.length === 2 ? true : undefined));
    for (let i = 0; i < 6; i++) await handle.signal(approveSignal, { callId: `noise-${i}` });
    await runner.decide(id, [{ callId: 'm1', decision: 'approve' }]);
    for (let i = 0; i < 6; i++) await handle.signal(approveSignal, { callId: `noise-b${i}` });
    await runner.decide(id, [{ callId: 'm2', decision: 'reject' }]);
    await handle.result();
  },
  'failed-max-turns': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [{ name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' }] }]);
    await runner.run('email-assistant', 'loop', { workflowId: id, maxTurns: 1 }).catch(() => undefined);
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
  handoff: async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'transfer_to_email_assistant', arguments: {}, callId: 'h1' }] },
      { toolCalls: [email(1)] },
      { text: 'done' },
    ]);
    const paused = await runner.run('triage-assistant', 'go', { workflowId: id });
    await runner.run('triage-assistant', paused.toState().approve('m1'));
  },
  'nested-sub-agents': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'c1' }] },
      { text: 'done' },
    ]);
    h.model.script(`${id}/c1`, [
      { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c2' }] },
      { text: 'Ada' },
    ]);
    const paused = await runner.run('contract-helper', 'go', { workflowId: id });
    await runner.run('contract-helper', paused.toState().approve('c2'));
  },
  // Recorded on the modular workflow: the model's transcript kept outside history, compact continue-as-new carries.
  'transcript-continued-as-new': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [email(1)] },
      { toolCalls: [email(2), { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' }] },
      { toolCalls: [email(3)] },
      { text: 'done' },
    ]);
    let r = await runner.run('email-assistant', 'go', { workflowId: id, continueAsNewAfterEvents: 20 });
    while (r.interruptions.length) {
      const state = r.toState();
      for (const i of r.interruptions) state.approve(i, { approver: 'ann' });
      r = await runner.run('email-assistant', state);
    }
  },
  // A nested decision the sub-run refuses (invalid edited arguments) comes back to the top run, then is approved.
  'nested-refused-decision': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'c1' }] },
      { text: 'done' },
    ]);
    h.model.script(`${id}/c1`, [
      { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c2' }] },
      { text: 'Ada' },
    ]);
    await runner.run('contract-helper', 'go', { workflowId: id });
    await runner.decide(id, [{ callId: 'c2', decision: 'approve', editedArguments: { userId: 7 } }]);
    await eventually(async () => ((await runner.pending(id)).some((p) => p.callId === 'c2') ? true : undefined));
    await runner.run('contract-helper', (await runner.nextPause(id)).toState().approve('c2'));
  },
  // Decisions for a sub-run's calls go on as they came (patch countersign-relayed-decisions): an edit the sub-run
  // refuses comes back, then an approval through the update, a rejection through a signal to the top run.
  'relayed-sub-run-decisions': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'c1' }] },
      { text: 'done' },
    ]);
    h.model.script(`${id}/c1`, [
      { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c2' }] },
      { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u2' }, callId: 'c3' }] },
      { text: 'Ada' },
    ]);
    await runner.run('contract-helper', 'go', { workflowId: id });
    await runner.decide(id, [{ callId: 'c2', decision: 'approve', editedArguments: { userId: 7 } }]);
    const waits = (callId: string) => async () =>
      (await runner.pending(id)).some((p) => p.callId === callId) ? true : undefined;
    await eventually(waits('c2'));
    await runner.decide(id, [{ callId: 'c2', decision: 'approve', approver: 'ann', reason: 'checked the NDA' }]);
    await eventually(waits('c3'));
    await h.client.workflow
      .getHandle(id)
      .signal(rejectSignal, { callId: 'c3', message: 'not this one', approver: 'bob' });
    await h.client.workflow.getHandle(id).result();
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
  'signed-and-quorum': async (h, runner, id) => {
    const wire = (amount: number, callId: string) => ({ name: 'wire_money', arguments: { amount }, callId });
    h.model.script(id, [
      { toolCalls: [wire(1, 's1'), wire(2, 's2'), { name: 'payout', arguments: { amount: 3 }, callId: 'q1' }] },
      { text: 'done' },
    ]);
    await runner.run('vault', 'pay', { workflowId: id });
    const tokenFor = (call: string, amount: number) =>
      signDecision(signingKey, { wf: id, call, decision: 'approve', arguments: `{"amount":${amount}}` });
    await runner.decide(id, [
      { callId: 's1', decision: 'approve', token: tokenFor('s1', 1) },
      { callId: 'q1', decision: 'extend', by: '1h', approver: 'ann' },
    ]);
    await h.client.workflow.getHandle(id).signal(approveSignal, { callId: 's2', token: tokenFor('s2', 2) });
    await runner.decide(id, [{ callId: 'q1', decision: 'approve', approver: 'ann' }]);
    await runner.decide(id, [{ callId: 'q1', decision: 'approve', approver: 'bob' }]);
    await h.client.workflow.getHandle(id).result();
  },
  'cancelled-while-waiting': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }]);
    await runner.run('email-assistant', 'go', { workflowId: id });
    await h.client.workflow.getHandle(id).cancel();
    await h.client.workflow
      .getHandle(id)
      .result()
      .catch(() => undefined);
  },
  // A standing grant approves one call; another call does not match and waits for a person. The grants workflow's
  // own history is recorded by the next scenario (same id as its file).
  'granted-call': async (h, runner, id) => {
    const { grantId } = await grant(
      h.client,
      h.taskQueue,
      {
        agent: 'email-assistant',
        tool: 'send_email',
        where: { to: '*@example.com' },
        for: '1h',
        uses: 5,
        grantedBy: 'ann',
      },
      GRANTS,
    );
    h.model.script(id, [
      { toolCalls: [email(1), { ...email(2), arguments: { to: 'eve@evil.org', subject: 'S2', body: 'b' } }] },
      { text: 'done' },
    ]);
    const paused = await runner.run('email-assistant', 'mail', { workflowId: id });
    await runner.run('email-assistant', paused.toState().approve('m2', { approver: 'bob' }));
    await revokeGrant(h.client, grantId, 'ann', GRANTS);
  },
  'granted-call-grants': async () => undefined,
  // A grants workflow of its own with a signed grant: an unsigned one refused (release_funds needs signed decisions), a
  // signed one verified by the local activity and recorded, a use as a worker asks it (signed grants only), a revoke.
  'signed-grant': async (h, _runner, id) => {
    const own = { workflowId: id };
    const request = {
      agent: 'grant-vault',
      tool: 'release_funds',
      where: { amount: { max: 10 } },
      for: '1h',
      uses: 2,
      grantedBy: 'ann',
    };
    const unsigned = await grant(h.client, h.taskQueue, request, own).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    if (!unsigned.includes('sign the grant with an approver key'))
      throw new Error(`the unsigned grant was not refused: ${unsigned}`);
    const { grantId } = await grant(h.client, h.taskQueue, { ...request, signWith: signingKey }, own);
    const used = await h.client.workflow.getHandle(id).executeUpdate(useGrantUpdate, {
      args: [
        { agent: 'grant-vault', tool: 'release_funds', arguments: '{"amount":5}', callKey: 'k1', signedOnly: true },
      ],
    });
    if (used?.grantId !== grantId || !used.token)
      throw new Error(`the signed grant was not used: ${JSON.stringify(used)}`);
    await revokeGrant(h.client, grantId, 'ann', own);
  },
  // No webhook on the worker: the run logs its notifications itself and schedules no notify activity.
  'quiet-notifications': async (_h, _runner, id) => {
    const quiet = await startHarness();
    try {
      const r = new Runner(quiet.client, { taskQueue: quiet.taskQueue });
      quiet.model.script(id, [{ toolCalls: [email(1)] }, { text: 'done' }]);
      const paused = await r.run('email-assistant', 'mail', {
        workflowId: id,
        approvalTimeout: '1h',
        remindEvery: '20m',
      });
      await r.run('email-assistant', paused.toState().approve('m1', { approver: 'ann' }));
    } finally {
      await quiet.close();
    }
  },
  // Fast mode (model calls as local activities), no webhook (notifications logged, as the snapshot says), and the
  // client library's start search attributes (the run does not write them again).
  'fast-mode': async (_h, _runner, id) => {
    const fast = await startHarness({ fastMode: true });
    try {
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
    } finally {
      await fast.close();
    }
  },
  // A decision signalled while no worker takes workflow tasks, after the model call that books the call it names
  // finished: both reach the run in one workflow task (the decision waits for the booking: 'decide-after-booking').
  'decision-in-booking-task': async (_h, _runner, id) => {
    const slow = await startHarness({ workerOptions: { shutdownGraceTime: '20s' } });
    try {
      slow.model.script(id, [{ toolCalls: [email(1)], delayMs: 2000 }, { text: 'done' }]);
      const handle = await slow.client.workflow.start('agentRun', {
        taskQueue: slow.taskQueue,
        workflowId: id,
        args: [{ agent: 'email-assistant', input: 'go' }],
      });
      await eventually(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined));
      await slow.stopWorker();
      await handle.signal(approveSignal, { callId: 'm1', approver: 'ann' });
      await slow.restartWorker();
      await handle.result();
    } finally {
      await slow.close();
    }
  },
  // A typed final answer (outputType) that is wrong once, right the second time; with run-level model settings.
  'typed-output-retry': async (h, runner, id) => {
    h.model.script(id, [{ text: '{"city":"Paris"}' }, { text: '{"city":"Paris","temperatureC":20}' }]);
    await runner.run('forecaster', 'Weather in Paris?', { workflowId: id, modelSettings: { temperature: 0.2 } });
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
  // Names compared canonically (behind patch countersign-canonical-approvers): "ANN" cannot count again after "ann",
  // "Cy " requested the run, a name with a control character is no name (three signals, audited ignored), the
  // update's validator refuses "Ann " (nothing in history), and "BOB" is bob to the approvers list and completes it.
  'canonical-approvers': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'grant_budget', arguments: { amount: 9 }, callId: 'b1' }] },
      { text: 'done' },
    ]);
    await runner.run('board', 'fund it', { workflowId: id, context: { requestedBy: 'cy' } });
    await runner.decide(id, [{ callId: 'b1', decision: 'approve', approver: 'ann' }]);
    const handle = h.client.workflow.getHandle(id);
    for (const approver of ['ANN', 'Cy ', 'ann\u0007']) await handle.signal(approveSignal, { callId: 'b1', approver });
    await eventually(async () =>
      (await runner.describe(id)).audit.filter((a) => a.decision === 'ignored').length === 3 ? true : undefined,
    );
    const refused = await runner.decide(id, [{ callId: 'b1', decision: 'approve', approver: 'Ann ' }]).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    if (!refused.startsWith('Ann  has already approved')) throw new Error(`"Ann " was not refused: ${refused}`);
    await runner.decide(id, [{ callId: 'b1', decision: 'approve', approver: 'BOB' }]);
    await handle.result();
  },
  // Recorded on the code before patch countersign-canonical-approvers (f9443c0), which compared names as written: "ANN"
  // completed ann's quorum, "Cy " approved a run cy requested, a control-character name counted, and the approvers
  // list refused "Bob ". Today's code refuses those decisions, so this scenario cannot be recorded again: its file is
  // the proof that runs decided so replay as they were.
  'names-as-written': async (h, runner, id) => {
    const call = (name: string, callId: string) => ({ name, arguments: { amount: 9 }, callId });
    h.model.script(id, [
      { toolCalls: [call('open_budget', 'o1'), call('open_budget', 'o2'), call('grant_budget', 'g1')] },
      { text: 'done' },
    ]);
    await runner.run('board', 'fund it', { workflowId: id, context: { requestedBy: 'cy' } });
    const handle = h.client.workflow.getHandle(id);
    await runner.decide(id, [{ callId: 'o1', decision: 'approve', approver: 'ann' }]);
    await handle.signal(approveSignal, { callId: 'o1', approver: 'ANN' });
    await runner.decide(id, [{ callId: 'o2', decision: 'approve', approver: 'Cy ' }]);
    await runner.decide(id, [{ callId: 'o2', decision: 'approve', approver: 'ann\u0007' }]);
    await handle.signal(approveSignal, { callId: 'g1', approver: 'Bob ' });
    await runner.decide(id, [{ callId: 'g1', decision: 'approve', approver: 'bob' }]);
    await runner.decide(id, [{ callId: 'g1', decision: 'approve', approver: 'ann' }]);
    await handle.result();
  },
  // Published once per condition check (patch countersign-publish-once): a sub-run's reports to its parent, a
  // decision it refuses and passes back up, approval_decided to the webhook, then the approval that completes both.
  'publish-once': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'c1' }] },
      { text: 'done' },
    ]);
    h.model.script(`${id}/c1`, [
      { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c2' }] },
      { text: 'Ada' },
    ]);
    await runner.run('contract-helper', 'go', { workflowId: id });
    await runner.decide(id, [{ callId: 'c2', decision: 'approve', editedArguments: { userId: 7 } }]);
    await eventually(async () => ((await runner.pending(id)).some((p) => p.callId === 'c2') ? true : undefined));
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
    await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: id,
      args: [{ ...run, onTimeout: 'reject' }],
    });
    const handle = h.client.workflow.getHandle(id);
    await eventually(async () => ((await handle.query(runStateQuery)).pending.length === 2 ? true : undefined));
    await handle.signal(rejectSignal, { callId: 'm2', message: 'no' });
    await handle.signal(approveSignal, { callId: 'm3', approver: 'ann' });
    await handle.result();
  },
  'run-deadline': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }]);
    await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: id,
      args: [{ agent: 'email-assistant', input: 'go', runTimeout: '2s' }],
    });
    await h.client.workflow
      .getHandle(id)
      .result()
      .catch(() => undefined);
  },
};

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !scenarios[w]);
  if (unknown.length)
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  quietRuntime();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binaryPath('temporal') },
      searchAttributes: [HitlStatus, HitlPendingTools, HitlAgent, HitlPendingSince],
      ui: false,
    },
  });
  const dir = join(projectRoot, 'test/histories');
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(projectRoot, '.temporal/record-bundle.js');
  writeFileSync(bundlePath, (await buildWorkflowBundle()).code);
  process.env.COUNTERSIGN_TEST_ADDRESS = env.address;
  process.env.COUNTERSIGN_TEST_BUNDLE = bundlePath;
  const hook = await startWebhookReceiver(); // every decision reaches a webhook (approval_decided)
  const h = await startHarness({
    registry: historyRegistry(),
    webhookUrl: hook.url,
    approverKeys: [{ kid: signingKey.kid, x: signingKey.x }],
    grantsWorkflowId: GRANTS.workflowId, // no other scenario has grants: asking this one changes nothing for them
  });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  try {
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (wanted.length && !wanted.includes(name)) continue;
      const workflowId = name; // replay derives the id from the file name (child workflow ids depend on it)
      await scenario(h, runner, workflowId);
      // Every run of the workflow id (continue-as-new makes several), oldest first.
      const latest = (await h.client.workflow.getHandle(workflowId).describe()).runId;
      const runs = await eventually(async () => {
        const found = [];
        for await (const w of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(w);
        return found.some((w) => w.runId === latest)
          ? found.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())
          : undefined; // visibility lags
      });
      for (const [i, run] of runs.entries()) {
        const history = await h.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
        const file = join(dir, runs.length > 1 ? `${name}.run${i + 1}.json` : `${name}.json`);
        writeFileSync(file, historyToJSON(history) + '\n');
        console.log(`recorded ${file} (${history.events?.length} events, ${run.status.name})`);
      }
    }
  } finally {
    await h.close();
    await hook.close();
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(`record-histories: ${(err as Error).message}`);
  process.exit(1);
});
