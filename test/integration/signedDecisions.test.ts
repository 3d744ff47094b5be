// Signed decisions against the real dev server: keys and tokens made with Node's crypto directly (not the project's
// signer), every refusal reason by update (one clear message, nothing changes) and by signal (ignored and audited),
// a valid token by signal, update, RunState and CLI, a token replayed on another call or run, a nested call, and
// every decision reported to the webhook. The vault, its keys and tokens are in test/support/signedVault.ts; the inbox's
// signing for the approvers whose keys it holds, and a spoofed identity header, are in inboxIdentity.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AgentRegistry } from '../../agents';
import { DecisionRejectedError, Runner } from '../../client';
import { approveSignal } from '../../contract/messages';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { projectRoot } from '../support/toolchain';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';
import { approver, approverKeysOf, ARGS, now, parent, token, vault, vaultRuns, wireCall } from '../support/signedVault';
import { loadApproverKeys, verifyDecisionSignatures } from '../../activities/approverKeys';
import { readPrivateKey, signDecision } from '../../client/signing/decisionSigning';
import { cliEnv, countersign } from '../support/countersignCli';

jest.setTimeout(300_000);
const exec = promisify(execFile);

const ann = approver('ann');
const bob = approver('bob');
const mallory = approver('mallory'); // not in the worker's key set

let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
beforeAll(async () => {
  hook = await startWebhookReceiver();
  h = await startHarness({
    registry: new AgentRegistry([vault, parent]),
    webhookUrl: hook.url,
    approverKeys: approverKeysOf([ann, bob]),
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await hook?.close();
});
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

test('a valid token by update approves once: the approver is the token’s sub, the audit says verified, the tool runs once', async () => {
  const { workflowId } = await paused();
  const t = token(ann, { wf: workflowId, call: 'w1', arguments: ARGS, jti: 'once-1' });
  const result = await runner.decide(workflowId, [
    { callId: 'w1', decision: 'approve', approver: 'mallory', token: t },
  ]);
  expect(result.applied).toEqual([
    { callId: 'w1', toolName: 'wire_money', outcome: 'approved', approver: 'ann', verified: true },
  ]);
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect(await auditOf(workflowId)).toEqual([
    expect.objectContaining({
      decision: 'approved',
      approver: 'ann',
      verified: true,
      keyId: 'ann',
      jti: 'once-1',
      via: 'update',
    }),
  ]);
  expect(await wiredBy(workflowId)).toHaveLength(1);
  const decided = await eventually(async () =>
    hook.received.find((n) => n.workflowId === workflowId && n.event === 'approval_decided'),
  );
  expect(decided).toMatchObject({
    outcome: 'approved',
    approver: 'ann',
    verified: true,
    keyId: 'ann',
    callId: 'w1',
    toolName: 'wire_money',
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

test('RunState.approve({ signWith }) and edited arguments: the token signs the edited arguments', async () => {
  const workflowId = newId('signed');
  h.model.script(workflowId, [wireCall('e1'), { text: 'done' }]);
  const run = await runner.run('vault', 'pay', { workflowId });
  const state = run.toState();
  state.approve('e1', { signWith: { ...ann.jwk, kid: 'ann' }, editedArguments: { to: 'acme', amount: 90 } });
  const done = await runner.run('vault', state);
  expect(done.finalOutput).toBe('done');
  expect((await wiredBy(workflowId)).map((e) => e.amount)).toEqual([90]);
  expect(await auditOf(workflowId)).toEqual([
    expect.objectContaining({
      decision: 'approved',
      approver: 'ann',
      verified: true,
      editedArguments: '{"to":"acme","amount":90}',
    }),
  ]);
});

test('CLI: approve --key signs with a private JWK file; reject --key too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-keys-'));
  const keyFile = join(dir, 'ann.private.jwk');
  writeFileSync(keyFile, JSON.stringify({ ...ann.jwk, kid: 'ann' }));
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
  const cli = (...args: string[]) => countersign(args, env);
  const a = await paused('c1');
  const { stdout } = await cli('approve', a.workflowId, 'c1', '--key', keyFile);
  expect(stdout).toContain('approved wire_money (call c1) as ann (signed)');
  const b = await paused('c2');
  await cli('reject', b.workflowId, 'c2', '--key', keyFile, '--message', 'not today');
  await eventually(async () => ((await runner.describe(b.workflowId)).status === 'Completed' ? true : undefined));
  expect(await auditOf(b.workflowId)).toEqual([
    expect.objectContaining({ decision: 'rejected', approver: 'ann', verified: true, message: 'not today' }),
  ]);
  const unsigned = await cli('approve', (await paused('c3')).workflowId, 'c3', '--as', 'ann').catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(unsigned).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^countersign: call c3 \(wire_money\) needs a signed decision/),
  });
});

test('a nested call: the token names the top run, and the sub-run checks it itself', async () => {
  const workflowId = newId('signed-parent');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'ask_vault', arguments: { input: 'pay acme' }, callId: 'p1' }] },
    { text: 'parent done' },
  ]);
  h.model.script(`${workflowId}/p1`, [wireCall('n1'), { text: 'child done' }]);
  const run = await runner.run('vault-parent', 'go', { workflowId });
  expect(run.interruptions).toEqual([
    expect.objectContaining({ callId: 'n1', path: 'ask_vault > wire_money', signedDecisions: true }),
  ]);
  await expect(
    runner.decide(workflowId, [
      { callId: 'n1', decision: 'approve', token: token(ann, { wf: `${workflowId}/p1`, call: 'n1', arguments: ARGS }) },
    ]),
  ).rejects.toThrow(`token is for run "${workflowId}/p1", not "${workflowId}"`);
  await runner.decide(workflowId, [
    { callId: 'n1', decision: 'approve', token: token(ann, { wf: workflowId, call: 'n1', arguments: ARGS }) },
  ]);
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect((await runner.describe(workflowId)).finalOutput).toBe('parent done');
  expect(await auditOf(`${workflowId}/p1`)).toEqual([
    expect.objectContaining({ decision: 'approved', approver: 'ann', verified: true }),
  ]);
});

test('quorum with signed decisions: n distinct verified subs; the same key twice is refused whatever name it claims', async () => {
  const workflowId = newId('signed-quorum');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'release_funds', arguments: { amount: 5 }, callId: 'q1' }] },
    { text: 'released' },
  ]);
  await runner.run('vault', 'release', { workflowId });
  const args = '{"amount":5}';
  expect(
    (
      await runner.decide(workflowId, [
        { callId: 'q1', decision: 'approve', token: token(ann, { wf: workflowId, call: 'q1', arguments: args }) },
      ])
    ).applied[0],
  ).toMatchObject({ outcome: 'approval_counted', approver: 'ann', verified: true });
  await expect(
    runner.decide(workflowId, [
      {
        callId: 'q1',
        decision: 'approve',
        approver: 'bob',
        token: token(ann, { wf: workflowId, call: 'q1', arguments: args }),
      },
    ]),
  ).rejects.toThrow('ann has already approved call q1 (release_funds) (1 of 2 approvals (ann))');
  expect(
    (
      await runner.decide(workflowId, [
        { callId: 'q1', decision: 'approve', token: token(bob, { wf: workflowId, call: 'q1', arguments: args }) },
      ])
    ).applied[0],
  ).toMatchObject({
    outcome: 'approved',
    approver: 'bob',
    verified: true,
    quorum: { needed: 2, approvedBy: ['ann', 'bob'] },
  });
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect((await auditOf(workflowId)).map((a) => [a.decision, a.approver, a.verified])).toEqual([
    ['approval_counted', 'ann', true],
    ['approved', 'bob', true],
  ]);
});

test('countersign keys generate: a private key (mode 600) and a public key set the worker reads, whose tokens verify', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-keys-'));
  const { stdout } = await exec(
    process.execPath,
    [join(projectRoot, 'bin/countersign.js'), 'keys', 'generate', 'dora', '--dir', dir, '--json'],
    { cwd: projectRoot },
  );
  const files = JSON.parse(stdout) as { privateKeyFile: string; keySetFile: string };
  expect(statSync(files.privateKeyFile).mode & 0o777).toBe(0o600);
  const keys = loadApproverKeys(files.keySetFile);
  expect(keys.map((k) => k.kid)).toEqual(['dora']);
  expect(JSON.parse(readFileSync(files.keySetFile, 'utf8')).keys[0]).not.toHaveProperty('d');
  const signed = signDecision(readPrivateKey(files.privateKeyFile), {
    wf: 'w',
    call: 'c',
    decision: 'approve',
    arguments: '{}',
  });
  expect(verifyDecisionSignatures(keys, [signed])).toEqual([{ ok: true, kid: 'dora' }]);
  expect(verifyDecisionSignatures([{ kid: 'dora', x: ann.jwk.x }], [signed])).toEqual([
    { ok: false, problem: 'bad signature: the token was not signed by key "dora"' },
  ]);
});
