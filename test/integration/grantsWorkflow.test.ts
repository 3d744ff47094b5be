// The grants workflow against the real dev server: `useGrant` takes one use per call key; it continues as new with its
// grants; without one no grants apply, and one that does not answer costs a bounded wait before a person decides; and
// the CLI commands (grant, grants, revoke) end to end. Grants at use are in grantedCalls.test.ts; the agent in
// test/support/grantMailer.ts.
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Runner } from '../../client';
import { GRANTS_WORKFLOW_TYPE, type GrantView, useGrantUpdate } from '../../contract/grantMessages';
import { countersignExit, cliEnv } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { by, grantMailerRuns, grantsId, startGrantMailer, waiting } from '../support/grantMailer';
import { closeWithGrants } from '../support/grantsCleanup';
import type { Harness } from '../support/harness';

jest.setTimeout(300_000);

let h: Harness;
let runner: Runner;
let firstRunId: string;
beforeAll(async () => ({ h, runner, firstRunId } = await startGrantMailer()));
afterAll(async () => closeWithGrants(h, grantsId));
const { add, runWith, finish, grantOf } = grantMailerRuns(() => ({ h, runner }));

test('useGrant takes one use per call key; the grants workflow continues as new and keeps its grants', async () => {
  const { grantId } = await add(by('ann', { tool: 'archive', where: { record_id: 'K-1' }, uses: 3 }));
  const handle = h.client.workflow.getHandle(grantsId);
  const use = (callKey: string, recordId = 'K-1') =>
    handle.executeUpdate(useGrantUpdate, {
      args: [{ agent: 'grant-mailer', tool: 'archive', arguments: JSON.stringify({ record_id: recordId }), callKey }],
    });
  expect(await use('wf:run:k1')).toEqual({ grantId, grantedBy: 'ann' });
  expect(await use('wf:run:k1')).toEqual({ grantId, grantedBy: 'ann' });
  expect((await grantOf(grantId))!.usesLeft).toBe(2);
  await expect(handle.executeUpdate(useGrantUpdate, { args: [{ agent: 'grant-mailer' } as never] })).rejects.toThrow();

  // Enough updates to cross the 40-event limit again, then the same call key still answers the same.
  for (let i = 0; i < 15; i++) expect(await use(`wf:run:other-${i}`, 'K-2')).toBeNull();
  const { runId } = await handle.describe();
  expect(runId).not.toBe(firstRunId);
  expect(await use('wf:run:k1')).toEqual({ grantId, grantedBy: 'ann' });
  expect((await grantOf(grantId))!.usesLeft).toBe(2);
});

test('without a grants workflow no grants apply; one that does not answer costs a bounded wait; a person decides', async () => {
  // The worker's own client (over its NativeConnection) reports a missing workflow as WorkflowNotFoundError.
  const missing = newId('no-grants');
  const err = await h.worker
    .client!.workflow.getHandle(missing)
    .executeUpdate(useGrantUpdate, { args: [{ agent: 'a', tool: 't', arguments: '{}', callKey: 'k' }] })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowNotFoundError);
  await h.restartWorker(undefined, { grantsWorkflowId: missing });
  try {
    const started = Date.now();
    const result = await runWith([['notify', { channel: 'ops' }]]);
    expect(waiting(result)).toEqual(['c0']);
    expect(Date.now() - started).toBeLessThan(8000); // not the 10 s a stuck grants workflow would cost
    await finish(result);

    // A grants workflow that no worker serves: after a bounded wait, a person decides (fail closed).
    const stuck = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId: missing,
      taskQueue: newId('no-worker'),
      args: [],
    });
    const slow = Date.now();
    const unanswered = await runWith([['notify', { channel: 'ops' }]]);
    expect(waiting(unanswered)).toEqual(['c0']);
    expect(Date.now() - slow).toBeGreaterThanOrEqual(9000);
    await finish(unanswered);
    await stuck.terminate('test over');
  } finally {
    await h.restartWorker(undefined, { grantsWorkflowId: grantsId });
  }
});

describe('the CLI', () => {
  const cli = (...args: string[]) => countersignExit(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }));
  const listed = async () => JSON.parse((await cli('grants', '--json')).stdout) as GrantView[];

  test('grant, grants --json, revoke: exit codes and one-line errors; bad input creates nothing', async () => {
    const before = await listed();
    const bad: Array<[string[], string]> = [
      [['--where', '{to:'], `countersign: --where must be JSON, e.g. '{"to":"*@example.com","amount":{"max":100}}'\n`],
      [
        ['--where', '[1]'],
        `countersign: --where must be a JSON object of argument constraints, e.g. '{"to":"*@example.com"}'\n`,
      ],
      [['--where', '{"amount":{"min":5,"max":1}}'], 'countersign: --where amount: "min" is larger than "max"\n'],
      [
        ['--where', '{}', '--for', 'forever'],
        'countersign: --for: must be a duration such as "30s", "15m", "24h" or "7d"\n',
      ],
      [['--where', '{}', '--uses', '0'], 'countersign: --uses must be a whole number of at least 1\n'],
    ];
    for (const [args, stderr] of bad) {
      const r = await cli('grant', 'grant-mailer', 'send_email', '--for', '1h', ...args, '--as', 'ann');
      expect([r.code, r.stdout, r.stderr]).toEqual([1, '', stderr]);
    }
    const quorum = await cli('grant', 'grant-mailer', 'wire_money', '--where', '{}', '--for', '1h', '--as', 'ann');
    expect([quorum.code, quorum.stderr]).toEqual([
      1,
      'countersign: cannot grant: tool wire_money needs 2 approvals per call (quorum): it cannot be granted unless its policy says grantable: true\n',
    ]);
    expect(await listed()).toEqual(before);

    const made = await cli(
      'grant',
      'grant-mailer',
      'send_email',
      '--where',
      '{"to":"*@example.com"}',
      '--for',
      '30m',
      '--uses',
      '20',
      '--as',
      'ann',
    );
    expect(made.code).toBe(0);
    const id = made.stdout.trim();
    expect(id).toMatch(/^g-[0-9a-f]{12}$/);
    const row = (await listed()).find((g) => g.id === id);
    expect(row).toMatchObject({
      agent: 'grant-mailer',
      tool: 'send_email',
      where: { to: '*@example.com' },
      grantedBy: 'ann',
      usesLeft: 20,
    });
    expect((await cli('grants')).stdout).toMatch(
      new RegExp(
        `${id}\\s+grant-mailer\\s+send_email\\s+\\{"to":"\\*@example.com"\\}\\s+\\S+ \\(in (29|30)m\\)\\s+20\\s+ann`,
      ),
    );

    const warned = await cli('grant', 'grant-mailer', 'pay', '--where', '{}', '--for', '1h', '--as', 'ann', '--json');
    expect(warned.code).toBe(0);
    expect(JSON.parse(warned.stdout)).toMatchObject({
      grantId: expect.stringMatching(/^g-/),
      warning: expect.stringContaining('not among the approvers of pay'),
    });

    expect(await cli('revoke', id, '--as', 'ann')).toEqual({ code: 0, stdout: `revoked ${id}\n`, stderr: '' });
    expect((await listed()).some((g) => g.id === id)).toBe(false);
    expect(await cli('revoke', id)).toEqual({
      code: 1,
      stdout: '',
      stderr: `countersign: grant ${id} is no longer active: revoked\n`,
    });
    expect((await cli('revoke', 'g-unknown')).stderr).toBe(
      'countersign: unknown grant g-unknown (see: countersign grants)\n',
    );
  });
});
