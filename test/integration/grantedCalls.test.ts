// Standing grants at use, against the real dev server: a matching call in a new run runs without a pause and is
// audited `granted` with the grant id and its author; a call the grant does not match pauses; an exhausted or revoked
// grant stops applying; the tool's policy is never widened (quorum refused at grant time, approvers and the requester
// left out at use time). The grants workflow itself and the CLI are in grantsWorkflow.test.ts; the agent in
// test/support/grantMailer.ts.
import { CountersignError, type Runner } from '../../client';
import { revokeGrant } from '../../client/grants/grantsClient';
import { by, grantMailerRuns, grantsId, ran, startGrantMailer, waiting } from '../support/grantMailer';
import { closeWithGrants } from '../support/grantsCleanup';
import type { Harness } from '../support/harness';

jest.setTimeout(300_000);

let h: Harness;
let runner: Runner;
beforeAll(async () => ({ h, runner } = await startGrantMailer()));
afterAll(async () => closeWithGrants(h, grantsId));
const { add, runWith, finish, grantOf } = grantMailerRuns(() => ({ h, runner }));

test('a matching call in a new run runs without a pause, audited granted with the grant id and its author; others pause', async () => {
  const { grantId, expiresAt } = await add(
    by('ann', { where: { to: '*@example.com', subject: 'weekly report' }, uses: 20 }),
  );
  expect(grantId).toMatch(/^g-[0-9a-f]{12}$/);
  expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(55 * 60_000);

  const result = await runWith([
    ['send_email', { to: 'bob@example.com', subject: 'weekly report' }],
    ['send_email', { to: 'eve@evil.org', subject: 'weekly report' }],
    ['send_email', { to: 'bob@example.com', subject: 'other' }],
  ]);
  expect(waiting(result)).toEqual(['c1', 'c2']);
  expect(ran).toContain(`${result.workflowId}:c0`);
  await finish(result);

  const audit = await runner.audit(result.workflowId);
  expect(audit.find((a) => a.callId === 'c0')).toMatchObject({
    decision: 'granted',
    via: 'grant',
    approver: 'ann',
    grantId,
    reason: `standing grant ${grantId}`,
  });
  expect(audit.filter((a) => a.callId !== 'c0').map((a) => a.decision)).toEqual(['rejected', 'rejected']);
  expect((await grantOf(grantId))!.usesLeft).toBe(19);
  await revokeGrant(h.client, grantId, 'ann');
});

test('an exhausted grant stops applying, and so does a revoked one', async () => {
  const once = await add(by('ann', { tool: 'archive', where: { record_id: 'DR-*' }, uses: 1 }));
  const first = await runWith([['archive', { record_id: 'DR-1' }]]);
  expect(first.finalOutput).toBe('done');
  expect(await grantOf(once.grantId)).toBeUndefined(); // used up: no longer listed
  const second = await runWith([['archive', { record_id: 'DR-2' }]]);
  expect(waiting(second)).toEqual(['c0']);
  await finish(second);

  const open = await add(by('bob', { tool: 'notify', for: '2h' }));
  expect((await runWith([['notify', { channel: 'ops' }]])).finalOutput).toBe('done');
  expect(await revokeGrant(h.client, open.grantId, 'bob')).toMatchObject({ grantId: open.grantId });
  const after = await runWith([['notify', { channel: 'ops' }]]);
  expect(waiting(after)).toEqual(['c0']);
  await finish(after);
  await expect(revokeGrant(h.client, open.grantId)).rejects.toThrow(
    new CountersignError(`grant ${open.grantId} is no longer active: revoked`),
  );
  await expect(revokeGrant(h.client, 'g-nope')).rejects.toThrow('unknown grant g-nope (see: countersign grants)');
});

test('a grant never widens the policy: quorum refused at grant time; approvers and the requester left out at use time', async () => {
  await expect(add(by('ann', { tool: 'wire_money' }))).rejects.toThrow(
    new CountersignError(
      'cannot grant: tool wire_money needs 2 approvals per call (quorum): it cannot be granted unless its policy says grantable: true',
    ),
  );
  await expect(add(by('ann', { tool: 'lookup' }))).rejects.toThrow(
    'cannot grant: tool lookup never needs approval: there is nothing to grant',
  );
  await expect(add(by('ann', { tool: 'nope' }))).rejects.toThrow(/^cannot grant: agent grant-mailer has no tool nope/);
  await expect(add(by('ann', { agent: 'ghost' }))).rejects.toThrow(/^cannot grant send_email: no agent named "ghost"/);
  await expect(add(by('ann', { where: { amount: { max: 'x' } } }))).rejects.toThrow(
    'invalid grant: where.amount: "min" and "max" must be numbers',
  );

  // Outside the tool's approvers: made, with a warning, and never used.
  const outsider = await add(by('ann', { tool: 'pay', uses: 5 }));
  expect(outsider.warning).toBe('ann is not among the approvers of pay (cfo): this grant applies to none of its calls');
  const unpaid = await runWith([['pay', { amount: 5 }]]);
  expect(waiting(unpaid)).toEqual(['c0']);
  await finish(unpaid, 'cfo');
  expect((await grantOf(outsider.grantId))!.usesLeft).toBe(5);

  // excludeRequester: cy's grant does not approve cy's own run, but does approve dan's.
  const cys = await add(by('cy', { tool: 'expense', where: { amount: { max: 100 } } }));
  const own = await runWith([['expense', { amount: 50 }]], { requestedBy: 'cy' });
  expect(waiting(own)).toEqual(['c0']);
  await finish(own, 'dan');
  const dans = await runWith(
    [
      ['expense', { amount: 50 }],
      ['expense', { amount: 500 }],
    ],
    { requestedBy: 'dan' },
  );
  expect(waiting(dans)).toEqual(['c1']);
  await finish(dans, 'cy');
  expect((await runner.audit(dans.workflowId))[0]).toMatchObject({
    callId: 'c0',
    decision: 'granted',
    approver: 'cy',
    grantId: cys.grantId,
  });
});
