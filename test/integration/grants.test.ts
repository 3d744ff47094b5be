// Standing grants against the real dev server: a matching call in a new run runs without a pause and is audited
// `granted` with the grant id and its author; a call the grant does not match pauses; an exhausted or revoked grant
// stops applying; the tool's policy is never widened (quorum refused at grant time, approvers and the requester
// left out at use time); `useGrant` takes one use per call key; the grants workflow continues as new with its
// grants; and the CLI commands end to end.
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { CountersignError, Runner } from '../../client';
import { grant, listGrants, revokeGrant } from '../../client/grants/grantsClient';
import type { AgentRunResult } from '../../client/run/runner';
import { GRANTS_WORKFLOW_TYPE, type GrantView, useGrantUpdate } from '../../contract/grantMessages';
import { countersignExit, cliEnv } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const ran: string[] = [];
const tool = (name: string, parameters: z.ZodObject, more: Record<string, unknown> = {}) =>
  defineTool({
    name,
    description: name,
    parameters,
    needsApproval: true,
    execute: (args, ctx) => (ran.push(`${ctx.runId}:${ctx.callId}`), `${name} ${JSON.stringify(args)}`),
    ...more,
  });

const mailer = defineAgent({
  name: 'grant-mailer',
  instructions: 'test',
  tools: [
    tool('send_email', z.object({ to: z.string(), subject: z.string() })),
    tool('archive', z.object({ record_id: z.string() })),
    tool('notify', z.object({ channel: z.string() })),
    tool('wire_money', z.object({ amount: z.number() }), { quorum: 2, approvers: ['ann', 'bob', 'cy'] }),
    tool('pay', z.object({ amount: z.number() }), { approvers: ['cfo'] }),
    tool('expense', z.object({ amount: z.number() }), { approvers: ['cy', 'dan'], excludeRequester: true }),
    defineTool({
      name: 'lookup',
      description: 'lookup',
      parameters: z.object({ name: z.string() }),
      execute: () => 'found',
    }),
  ],
});

// Grants of its own: a unique grants workflow (on this file's task queue). The worker is given it; the client
// library and the CLI read it from COUNTERSIGN_GRANTS_WORKFLOW_ID, as a deployment would set it.
const grantsId = newId('grants');
process.env.COUNTERSIGN_GRANTS_WORKFLOW_ID = grantsId;

let h: Harness;
let runner: Runner;
let firstRunId: string;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([mailer]), grantsWorkflowId: grantsId });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  // Started here with a small history limit, so every test below also crosses continue-as-new.
  const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
    workflowId: grantsId,
    taskQueue: h.taskQueue,
    args: [{ continueAsNewAfterEvents: 40 }],
  });
  firstRunId = handle.firstExecutionRunId;
});
afterAll(async () => {
  await h?.client.workflow
    .getHandle(grantsId)
    .terminate('test over')
    .catch(() => undefined);
  await h?.close();
});

const by = (grantedBy: string, more: Partial<Parameters<typeof grant>[2]> = {}) => ({
  agent: 'grant-mailer',
  tool: 'send_email',
  where: {},
  for: '1h',
  grantedBy,
  ...more,
});
const add = (request: Parameters<typeof grant>[2]) => grant(h.client, h.taskQueue, request);

/** Starts a run whose first turn makes these calls (ids c0, c1, …); returns it paused or done. */
async function runWith(
  calls: Array<[string, Record<string, unknown>]>,
  context?: Record<string, unknown>,
): Promise<AgentRunResult> {
  const workflowId = newId('granted');
  h.model.script(workflowId, [
    { toolCalls: calls.map(([name, args], i) => ({ name, arguments: args, callId: `c${i}` })) },
    { text: 'done' },
  ]);
  return runner.run('grant-mailer', 'go', { workflowId, ...(context ? { context } : {}) });
}

/** Rejects whatever still waits (as someone the tool allows), so the run ends. */
async function finish(result: AgentRunResult, approver = 'ann'): Promise<void> {
  if (!result.interruptions.length) return;
  const state = result.toState();
  for (const i of result.interruptions) state.reject(i, { approver });
  expect((await runner.run('grant-mailer', state)).finalOutput).toBe('done');
}

const waiting = (r: AgentRunResult) => r.interruptions.map((i) => i.callId);
const grantOf = async (id: string): Promise<GrantView | undefined> =>
  (await listGrants(h.client)).find((g) => g.id === id);

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
