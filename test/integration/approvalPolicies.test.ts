// Who may approve and what is left when a run ends, against the real dev server: a quorum of distinct approvers
// (a duplicate and the requester refused, also when spelled otherwise: one person, one vote; one rejection rejects),
// extensions from the CLI, and calls still waiting when a run is cancelled, fails or is terminated (audited
// cancelled; gone from the pending list and the search attributes).
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { recordOnce } from '../../agents/demo/outbox';
import { DecisionRejectedError, Runner } from '../../client';
import type { AuditEntry } from '../../contract/runViews';
import { cliEnv, countersign } from '../support/countersignCli';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const payout = defineTool({
  name: 'approve_payout',
  description: 'Pay out',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  quorum: 2,
  approvers: ['ann', 'bob', 'cy', 'am\u00e9lie'],
  excludeRequester: true,
  approvalTimeout: '7d',
  maxExtension: '2d',
  execute: async ({ amount }, ctx) => {
    await recordOnce({ idempotencyKey: ctx.idempotencyKey, kind: 'payout', amount });
    return `paid ${amount}`;
  },
});
const treasurer = defineAgent({ name: 'treasurer', instructions: 'test', tools: [payout] });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([treasurer]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const cli = async (...args: string[]) =>
  (await countersign(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }))).stdout;

async function paused(options: { runTimeout?: string } = {}, requestedBy = 'cy'): Promise<string> {
  const workflowId = newId('payout');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'approve_payout', arguments: { amount: 500 }, callId: 'p1' }] },
    { text: 'done' },
  ]);
  const run = await runner.run('treasurer', 'pay', { workflowId, context: { requestedBy }, ...options });
  expect(run.interruptions.map((i) => i.callId)).toEqual(['p1']);
  return workflowId;
}

const paidBy = async (workflowId: string) =>
  (await outboxOf(h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`));
const auditOf = async (workflowId: string): Promise<AuditEntry[]> => (await runner.describe(workflowId)).audit;
const refusal = (workflowId: string, approver: string): Promise<Error> =>
  runner.decide(workflowId, [{ callId: 'p1', decision: 'approve', approver }]).then(
    () => new Error('accepted'),
    (e: unknown) => e as Error,
  );

test('quorum of 2: the first approval counts, a duplicate and the requester are refused, the second distinct approver approves', async () => {
  const workflowId = await paused();
  expect((await runner.decide(workflowId, [{ callId: 'p1', decision: 'approve', approver: 'ann' }])).applied).toEqual([
    {
      callId: 'p1',
      toolName: 'approve_payout',
      outcome: 'approval_counted',
      approver: 'ann',
      quorum: { needed: 2, approvedBy: ['ann'] },
    },
  ]);
  expect((await runner.pending(workflowId))[0]).toMatchObject({
    callId: 'p1',
    quorum: { needed: 2, approvedBy: ['ann'] },
    excludedApprover: 'cy',
  });
  expect(await cli('show', workflowId)).toContain('1 of 2 approvals (ann)');

  const duplicate = await refusal(workflowId, 'ann');
  expect(duplicate).toBeInstanceOf(DecisionRejectedError);
  expect(duplicate.message).toBe(
    'ann has already approved call p1 (approve_payout) (1 of 2 approvals (ann)): another approver must',
  );
  expect((await refusal(workflowId, 'cy')).message).toBe(
    'cy requested this run and may not approve its own call p1 (approve_payout): another approver must',
  );
  expect(await paidBy(workflowId)).toHaveLength(0);

  const out = await cli('approve', workflowId, 'p1', '--as', 'bob');
  expect(out).toContain('approved approve_payout (call p1) as bob (2 of 2 approvals (ann, bob))');
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect(await paidBy(workflowId)).toHaveLength(1);
  expect((await auditOf(workflowId)).map((a) => [a.decision, a.approver])).toEqual([
    ['approval_counted', 'ann'],
    ['approved', 'bob'],
  ]);
});

describe('one person, one vote: names are compared canonically (NFC, trimmed, any case)', () => {
  const failing = (args: string[]) =>
    countersign(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue })).then(
      () => ({ code: 0, stderr: 'accepted' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
  const already = (who: string, by: string) =>
    `${who} has already approved call p1 (approve_payout) (1 of 2 approvals (${by})): another approver must`;
  const requester = (who: string) =>
    `${who} requested this run and may not approve its own call p1 (approve_payout): another approver must`;

  test('ANN (CLI), " ann" (update) and "Ann " (signal) cannot complete a quorum ann started; BOB, listed as bob, completes it', async () => {
    const workflowId = await paused();
    await cli('approve', workflowId, 'p1', '--as', 'ann');
    // Each is ann to the approvers list, so the refusal is the quorum's.
    expect(await failing(['approve', workflowId, 'p1', '--as', 'ANN'])).toEqual({
      code: 1,
      stderr: `countersign: ${already('ANN', 'ann')}\n`,
    });
    expect((await refusal(workflowId, ' ann')).message).toBe(already(' ann', 'ann'));
    await h.client.workflow.getHandle(workflowId).signal('approve', { callId: 'p1', approver: 'Ann ' });
    await eventually(async () =>
      (await auditOf(workflowId)).some((a) => a.decision === 'ignored') ? true : undefined,
    );
    expect(await paidBy(workflowId)).toHaveLength(0);
    expect((await runner.pending(workflowId))[0]!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] });

    expect(await cli('approve', workflowId, 'p1', '--as', 'BOB')).toContain(
      'approved approve_payout (call p1) as BOB (2 of 2 approvals (ann, BOB))',
    );
    await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
    expect(await paidBy(workflowId)).toHaveLength(1);
    expect((await auditOf(workflowId)).map((a) => [a.decision, a.approver, a.ignoredBecause])).toEqual([
      ['approval_counted', 'ann', undefined],
      ['ignored', 'Ann ', already('Ann ', 'ann')],
      ['approved', 'BOB', undefined],
    ]);
  });

  test('a run requested by ann: ANN, " ann" and "Ann " may not approve it; an NFD amélie cannot complete a quorum amélie started', async () => {
    const workflowId = await paused({}, 'ann');
    for (const spelling of ['ANN', ' ann', 'Ann '])
      expect((await refusal(workflowId, spelling)).message).toBe(requester(spelling));
    expect(await failing(['approve', workflowId, 'p1', '--as', 'Ann '])).toEqual({
      code: 1,
      stderr: `countersign: ${requester('Ann ')}\n`,
    });
    await runner.decide(workflowId, [{ callId: 'p1', decision: 'approve', approver: 'am\u00e9lie' }]);
    expect((await refusal(workflowId, 'Ame\u0301lie')).message).toBe(already('Ame\u0301lie', 'am\u00e9lie'));
    expect(
      (await runner.decide(workflowId, [{ callId: 'p1', decision: 'approve', approver: ' Cy' }])).applied,
    ).toMatchObject([{ outcome: 'approved', approver: ' Cy', quorum: { approvedBy: ['am\u00e9lie', ' Cy'] } }]);
    await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
    expect(await paidBy(workflowId)).toHaveLength(1);
  });

  test('an NFD spelling of a requester is the requester; empty, control-character and over-long names are refused in one line', async () => {
    const workflowId = await paused({}, 'am\u00e9lie');
    expect((await refusal(workflowId, 'AME\u0301LIE ')).message).toBe(requester('AME\u0301LIE '));
    const hidden = 'approver name "ann\\u0007" holds a control or invisible formatting character: use plain text';
    const long = 'x'.repeat(201);
    for (const [as, line, wire = line] of [
      [' ', 'an approver name must not be empty'],
      ['ann\u0007', hidden],
      [
        long,
        'an approver name is at most 200 characters (this one has 201)',
        'invalid decide request: decisions.0.approver: at most 200 characters',
      ],
    ] as const) {
      expect(await failing(['approve', workflowId, 'p1', '--as', as])).toEqual({
        code: 1,
        stderr: `countersign: ${line}\n`,
      }); // refused before sending
      expect((await refusal(workflowId, as)).message).toBe(wire); // and by the run, when a client sends it anyway
    }
    expect(await failing(['approve', workflowId, 'p1', '--as', '\u202eann'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^countersign: approver name .* holds a control or invisible formatting character: use plain text\n$/,
      ),
    });
    const state = (await runner.nextPause(workflowId)).toState(); // the library's RunState refuses them too
    expect(() => state.approve('p1', { approver: ' ' })).toThrow('an approver name must not be empty');
    await h.client.workflow.getHandle(workflowId).signal('approve', { callId: 'p1', approver: 'ann\u0007' });
    await eventually(async () =>
      (await auditOf(workflowId)).some((a) => a.decision === 'ignored' && a.ignoredBecause === hidden)
        ? true
        : undefined,
    );
    expect((await runner.pending(workflowId))[0]!.quorum).toEqual({ needed: 2, approvedBy: [] });
    await h.client.workflow.getHandle(workflowId).terminate('test done');
  });
});

test('quorum: one rejection rejects the call whatever approvals it had, and it never runs', async () => {
  const workflowId = await paused();
  await runner.decide(workflowId, [{ callId: 'p1', decision: 'approve', approver: 'ann' }]);
  await runner.decide(workflowId, [{ callId: 'p1', decision: 'reject', approver: 'cy', message: 'not this month' }]);
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect(await paidBy(workflowId)).toHaveLength(0);
  expect((await runner.describe(workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'p1',
    output: 'not this month',
  });
});

test('extend from the CLI: audited, and refused past maxExtension in one line', async () => {
  const workflowId = await paused();
  const before = (await runner.pending(workflowId))[0]!.expiresAt!;
  expect(await cli('extend', workflowId, 'p1', '--by', '1d', '--as', 'ann')).toContain(
    `extended approve_payout (call p1) as ann (now expires ${new Date(Date.parse(before) + 86_400_000).toISOString()})`,
  );
  const err = await cli('extend', workflowId, 'p1', '--by', '2d', '--as', 'bob').catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(err).toMatchObject({
    code: 1,
    stderr: 'countersign: call p1 (approve_payout) may be extended by 1d more at most (maxExtension 2d), not 2d\n',
  });
  expect((await auditOf(workflowId)).map((a) => [a.decision, a.extendedBy])).toEqual([['extended', '1d']]);
  await h.client.workflow.getHandle(workflowId).terminate('test done');
});

describe('nothing left dangling when a run ends', () => {
  const listed = async (workflowId: string) =>
    (await runner.pending({ agent: 'treasurer' })).some((p) => p.workflowId === workflowId);
  const searchAttributes = async (workflowId: string) =>
    (await h.client.workflow.getHandle(workflowId).describe()).searchAttributes;

  test('cancelled: the waiting call is audited cancelled and leaves the pending list and the search attributes', async () => {
    const workflowId = await paused();
    await eventually(async () => ((await listed(workflowId)) ? true : undefined));
    const handle = h.client.workflow.getHandle(workflowId);
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(await auditOf(workflowId)).toEqual([
      expect.objectContaining({ callId: 'p1', decision: 'cancelled', reason: 'the run was cancelled', via: 'run' }),
    ]);
    expect((await runner.describe(workflowId)).pending).toEqual([]);
    const attrs = await searchAttributes(workflowId);
    expect(attrs.HitlStatus).toEqual(['Failed']);
    expect(attrs.HitlPendingTools ?? []).toEqual([]);
    await eventually(async () => ((await listed(workflowId)) ? undefined : true));
  });

  test('failed (its deadline passed): the waiting call is audited cancelled with the reason', async () => {
    const workflowId = await paused({ runTimeout: '3s' });
    const err = await h.client.workflow
      .getHandle(workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(await auditOf(workflowId)).toEqual([
      expect.objectContaining({
        decision: 'cancelled',
        reason: 'the run ended: the run passed its deadline (runTimeout 3s)',
      }),
    ]);
    expect((await searchAttributes(workflowId)).HitlPendingTools ?? []).toEqual([]);
  });

  test('terminated (no code runs): `pending` no longer lists its calls', async () => {
    const workflowId = await paused();
    await eventually(async () => ((await listed(workflowId)) ? true : undefined));
    await h.client.workflow.getHandle(workflowId).terminate('operator');
    await eventually(async () => ((await listed(workflowId)) ? undefined : true));
    expect(await cli('pending', '--agent', 'treasurer')).not.toContain(workflowId);
  });
});
