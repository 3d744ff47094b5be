// Replay-corpus scenarios: who may decide — signed decisions and quorums, standing grants (signed or not), approver
// names (scripts/record-histories.ts records them).
import { signDecision } from '../../client/signing/decisionSigning';
import { grant, revokeGrant } from '../../client/grants/grantsClient';
import { approveSignal } from '../../contract/messages';
import { useGrantUpdate } from '../../contract/grantMessages';
import { eventually } from '../../test/support/fixtures';
import { signingKey } from '../historyAgents';
import { email, GRANTS, refusal, type Scenarios } from './common';

export const signingScenarios: Scenarios = {
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
    const unsigned = await refusal(grant(h.client, h.taskQueue, request, own));
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
    const refused = await refusal(runner.decide(id, [{ callId: 'b1', decision: 'approve', approver: 'Ann ' }]));
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
};
