// Signed decisions refused, against the real dev server: keys and tokens made with Node's crypto directly (not the
// project's signer), every refusal reason by update (one clear message, nothing changes) and by signal (ignored and
// audited, then a valid one approves), a token replayed on another call or run, and a token id used twice. Valid
// tokens are in signedDecisionApprovals.test.ts; the vault, its keys and tokens in test/support/signedVault.ts.
import { DecisionRejectedError, type Runner } from '../../client';
import { approveSignal } from '../../contract/messages';
import { eventually, newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { approver, ARGS, now, startVault, token, vaultRuns, wireCall } from '../support/signedVault';

jest.setTimeout(300_000);

const ann = approver('ann');
const bob = approver('bob');
const mallory = approver('mallory'); // not in the worker's key set

let h: Harness;
let runner: Runner;
let close: () => Promise<void>;
beforeAll(async () => ({ h, runner, close } = await startVault([ann, bob])));
afterAll(async () => close?.());
const { paused, auditOf, wiredBy } = vaultRuns(() => ({ h, runner }));

test('the pending call shows exactly the arguments a token must sign', async () => {
  const { pending } = await paused();
  expect(pending.arguments).toBe(ARGS);
});

describe('refused by the update, with one clear message; nothing changes', () => {
  const cases: Array<[string, (wf: string) => { token?: string; decision?: 'approve' | 'reject' }, RegExp]> = [
    [
      'no token',
      () => ({}),
      /call w1 \(wire_money\) needs a signed decision: send a token signed with your approver key/,
    ],
    [
      'an unknown key id',
      (wf) => ({ token: token(mallory, { wf, call: 'w1', arguments: ARGS }) }),
      /unknown key id "mallory": not in the worker's approver keys/,
    ],
    [
      'a bad signature',
      (wf) => ({ token: token(ann, { wf, call: 'w1', arguments: ARGS }, { signer: bob.privateKey }) }),
      /bad signature: the token was not signed by key "ann"/,
    ],
    [
      'sub other than kid',
      (wf) => ({ token: token(ann, { wf, call: 'w1', arguments: ARGS, sub: 'bob' }) }),
      /token sub "bob" does not match its key id "ann"/,
    ],
    [
      'another run',
      () => ({ token: token(ann, { wf: 'some-other-run', call: 'w1', arguments: ARGS }) }),
      /token is for run "some-other-run"/,
    ],
    ['another call', (wf) => ({ token: token(ann, { wf, call: 'w2', arguments: ARGS }) }), /token is for call "w2"/],
    [
      'another decision',
      (wf) => ({ token: token(ann, { wf, call: 'w1', arguments: ARGS, decision: 'reject' }) }),
      /token says "reject", the decision is "approve"/,
    ],
    [
      'other arguments',
      (wf) => ({ token: token(ann, { wf, call: 'w1', arguments: '{"to":"acme","amount":1}' }) }),
      /token args do not match the call's arguments/,
    ],
    [
      'an expired token',
      (wf) => ({ token: token(ann, { wf, call: 'w1', arguments: ARGS, iat: now() - 120, exp: now() - 60 }) }),
      /token expired at 20/,
    ],
  ];
  test.each(cases)('%s', async (_what, make, message) => {
    const { workflowId } = await paused();
    const { token: t, decision = 'approve' } = make(workflowId);
    const err = await runner
      .decide(workflowId, [{ callId: 'w1', decision, approver: 'ann', ...(t ? { token: t } : {}) }])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecisionRejectedError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
    expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['w1']);
    expect((await auditOf(workflowId)).filter((a) => a.decision !== 'ignored')).toEqual([]);
  });
});

test('a token replayed on another run (same call id, same arguments) or on another call of its run is refused', async () => {
  const first = await paused('r1');
  const t = token(ann, { wf: first.workflowId, call: 'r1', arguments: ARGS });
  const second = await paused('r1');
  await expect(runner.decide(second.workflowId, [{ callId: 'r1', decision: 'approve', token: t }])).rejects.toThrow(
    `token is for run "${first.workflowId}", not "${second.workflowId}"`,
  );
  await runner.decide(first.workflowId, [{ callId: 'r1', decision: 'approve', token: t }]);
  await eventually(async () => ((await runner.describe(first.workflowId)).status === 'Completed' ? true : undefined));
  expect(await wiredBy(first.workflowId)).toHaveLength(1);
  expect(await wiredBy(second.workflowId)).toHaveLength(0);
  expect((await runner.pending(second.workflowId)).map((p) => p.callId)).toEqual(['r1']);
});

test('a jti counts once in its run: two tokens with the same jti in one batch, or after use, are refused', async () => {
  const workflowId = newId('signed');
  h.model.script(workflowId, [
    { toolCalls: [...wireCall('j1').toolCalls, { ...wireCall('j2').toolCalls[0]!, callId: 'j2' }] },
    { text: 'ok' },
  ]);
  await runner.run('vault', 'pay twice', { workflowId });
  const t1 = token(ann, { wf: workflowId, call: 'j1', arguments: ARGS, jti: 'same' });
  const t2 = token(ann, { wf: workflowId, call: 'j2', arguments: ARGS, jti: 'same' });
  await expect(
    runner.decide(workflowId, [
      { callId: 'j1', decision: 'approve', token: t1 },
      { callId: 'j2', decision: 'approve', token: t2 },
    ]),
  ).rejects.toThrow('token jti "same" was already used');
  await runner.decide(workflowId, [{ callId: 'j1', decision: 'approve', token: t1 }]);
  await expect(runner.decide(workflowId, [{ callId: 'j2', decision: 'approve', token: t2 }])).rejects.toThrow(
    'token jti "same" was already used',
  );
  expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['j2']);
});

test('by signal: a bad token is ignored and audited with the reason; a valid one approves', async () => {
  const { workflowId } = await paused();
  const handle = h.client.workflow.getHandle(workflowId);
  await handle.signal(approveSignal, { callId: 'w1', approver: 'ann' });
  await handle.signal(approveSignal, {
    callId: 'w1',
    token: token(ann, { wf: workflowId, call: 'w1', arguments: ARGS }, { signer: bob.privateKey }),
  });
  await handle.signal(approveSignal, {
    callId: 'w1',
    token: token(ann, { wf: workflowId, call: 'w1', arguments: '{}' }),
  });
  const ignored = await eventually(async () => {
    const audit = await auditOf(workflowId);
    return audit.length === 3 ? audit : undefined;
  });
  // The bad signature waits for the worker's keys (an activity); the other two are refused on arrival.
  expect(ignored.map((a) => a.decision)).toEqual(['ignored', 'ignored', 'ignored']);
  expect(ignored.map((a) => a.ignoredBecause).sort()).toEqual([
    'call w1 (wire_money) needs a signed decision: send a token signed with your approver key (countersign approve … --key <file>)',
    'decision for call w1 refused: bad signature: the token was not signed by key "ann"',
    "decision for call w1 refused: token args do not match the call's arguments (sign the arguments exactly as pendingApprovals shows them, or the edited arguments when editing)",
  ]);
  expect(await wiredBy(workflowId)).toHaveLength(0);
  await handle.signal(approveSignal, {
    callId: 'w1',
    approver: 'bob',
    token: token(ann, { wf: workflowId, call: 'w1', arguments: ARGS }),
  });
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect((await auditOf(workflowId)).at(-1)).toMatchObject({
    decision: 'approved',
    approver: 'ann',
    verified: true,
    via: 'signal',
  });
  expect(await wiredBy(workflowId)).toHaveLength(1);
});
