// Signed decisions accepted, against the real dev server: keys and tokens made with Node's crypto directly (not the
// project's signer); a valid token by update, RunState and CLI approves once, audited as verified and reported to the
// webhook; edited arguments signed; a nested call; a quorum of distinct verified subs; and `countersign keys generate`.
// Refusals are in signedDecisionRefusals.test.ts; the vault, its keys and tokens in test/support/signedVault.ts; the
// inbox's signing for the approvers whose keys it holds, and a spoofed identity header, in inboxIdentity.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Runner } from '../../client';
import { eventually, newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { projectRoot } from '../support/toolchain';
import type { WebhookReceiver } from '../support/webhookReceiver';
import { approver, ARGS, startVault, token, vaultRuns, wireCall } from '../support/signedVault';
import { loadApproverKeys, verifyDecisionSignatures } from '../../activities/approverKeys';
import { readPrivateKey, signDecision } from '../../client/signing/decisionSigning';
import { cliEnv, countersign } from '../support/countersignCli';

jest.setTimeout(300_000);
const exec = promisify(execFile);

const ann = approver('ann');
const bob = approver('bob');

let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let close: () => Promise<void>;
beforeAll(async () => ({ h, runner, hook, close } = await startVault([ann, bob])));
afterAll(async () => close?.());
const { paused, auditOf, wiredBy } = vaultRuns(() => ({ h, runner }));

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
