// Approvals across runs against the real dev server: ~50 runs of one agent, each pausing on an approval-gated
// tool, decided with a mix (approve, reject, left pending, cut off by terminate). The report built from
// visibility and each run's audit must count what was done, agree with the audit read run by run, and filter.
import { Command } from 'commander';
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import { approvalsAcross } from '../../client/approvals/approvalsReport';
import { addApprovalsCommand } from '../../cli/approvalsCommand';
import type { ApprovalRecord, ApprovalStatus } from '../../core/approvals/approvalHistory';
import { WORKFLOW_TYPE } from '../../contract/messages';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const clerk = defineAgent({ name: 'ledger-clerk', instructions: 'test', tools: [sendEmail, deleteRecord] });
const RUNS = 50;

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, clerk]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

/** What each run is meant to come to: approved by ann or bob, rejected by bob, left waiting, or terminated while it waits. */
type Plan = {
  workflowId: string;
  callId: string;
  tool: 'send_email' | 'delete_record';
  expect: ApprovalStatus;
  approver?: string;
};
const planFor = (i: number): Omit<Plan, 'workflowId' | 'callId'> => {
  const tool = i % 2 ? 'delete_record' : 'send_email';
  if (i < 4) return { tool, expect: 'cancelled' };
  return [
    { tool, expect: 'approved', approver: 'ann' } as const,
    { tool, expect: 'approved', approver: 'bob' } as const,
    { tool, expect: 'rejected', approver: 'bob' } as const,
    { tool, expect: 'pending' } as const,
  ][i % 4]!;
};
const toolCall = (tool: Plan['tool'], callId: string) =>
  tool === 'send_email'
    ? { name: tool, arguments: { to: 'a@example.com', subject: 'S', body: 'b' }, callId }
    : { name: tool, arguments: { record_id: 'R1' }, callId };

/** Runs `fn` over `items`, `n` at a time (a 2-core test machine dislikes 50 long-polls at once). */
async function inBatches<T>(items: T[], n: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(fn));
}

const countBy = (records: Array<{ status: string }>) =>
  records.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

const plans: Plan[] = [];

test('approvals across ~50 open and closed runs: counts per status, as done and as each audit says; filters', async () => {
  for (let i = 0; i < RUNS; i++) {
    const workflowId = newId(`approvals-${i}`);
    const plan = { workflowId, callId: `call-${i}`, ...planFor(i) };
    h.model.script(workflowId, [{ toolCalls: [toolCall(plan.tool, plan.callId)] }, { text: 'done' }]);
    plans.push(plan);
  }
  await inBatches(plans, 10, async (p) => {
    await runner.startOnly('ledger-clerk', 'do it', { workflowId: p.workflowId });
    const paused = await runner.nextPause(p.workflowId);
    expect(paused.interruptions.map((x) => x.callId)).toEqual([p.callId]);
  });
  await inBatches(plans, 10, async (p) => {
    if (p.expect === 'cancelled') return h.client.workflow.getHandle(p.workflowId).terminate('cut off while waiting');
    if (p.expect === 'pending') return;
    await runner.decide(p.workflowId, [
      { callId: p.callId, decision: p.expect === 'approved' ? 'approve' : 'reject', approver: p.approver },
    ]);
    expect((await runner.nextPause(p.workflowId)).status).toBe('Completed');
  });

  const done = countBy(plans.map((p) => ({ status: p.expect })));
  expect(done).toEqual({ cancelled: 4, approved: 24, rejected: 11, pending: 11 });

  // Visibility catches up with closes a little later: poll until every run's status is as done.
  const records = await eventually(async () => {
    const r = await approvalsAcross(h.client, { taskQueue: h.taskQueue });
    return r.length === RUNS && r.every((x) => x.status === plans.find((p) => p.workflowId === x.workflowId)?.expect)
      ? r
      : undefined;
  }, 90_000);
  expect(countBy(records)).toEqual(done);
  for (const p of plans)
    expect(records.find((r) => r.workflowId === p.workflowId)).toMatchObject({
      callId: p.callId,
      agent: 'ledger-clerk',
      toolName: p.tool,
      status: p.expect,
      approvers: p.approver ? [p.approver] : [],
    });

  // The same counts from each run's audit log, read run by run (a terminated run's waiting call has no entry).
  const fromAudits: Record<string, number> = {};
  await inBatches(plans, 10, async (p) => {
    const audit = await runner.audit(p.workflowId);
    const status = audit.at(-1)?.decision ?? (p.expect === 'cancelled' ? 'cancelled' : 'pending');
    fromAudits[status] = (fromAudits[status] ?? 0) + 1;
  });
  expect(fromAudits).toEqual(countBy(records));

  // Newest last: by decision time, else request time.
  const times = records.map((r) => r.decidedAt ?? r.requestedAt ?? '');
  expect([...times].sort()).toEqual(times);

  const ids = (rs: ApprovalRecord[]) => rs.map((r) => r.workflowId).sort();
  const planned = (keep: (p: Plan) => boolean) =>
    plans
      .filter(keep)
      .map((p) => p.workflowId)
      .sort();
  expect(ids(await approvalsAcross(h.client, { taskQueue: h.taskQueue, tool: 'delete_record' }))).toEqual(
    planned((p) => p.tool === 'delete_record'),
  );
  expect(ids(await approvalsAcross(h.client, { taskQueue: h.taskQueue, approver: 'bob' }))).toEqual(
    planned((p) => p.approver === 'bob'),
  );
  expect(
    ids(
      await approvalsAcross(h.client, {
        taskQueue: h.taskQueue,
        approver: 'bob',
        status: 'rejected',
        tool: 'send_email',
      }),
    ),
  ).toEqual(planned((p) => p.approver === 'bob' && p.expect === 'rejected' && p.tool === 'send_email'));
  expect(await approvalsAcross(h.client, { taskQueue: h.taskQueue, agent: 'email-assistant' })).toEqual([]);
  expect(await approvalsAcross(h.client, { taskQueue: h.taskQueue, since: '1h' })).toHaveLength(RUNS);
  await expect(approvalsAcross(h.client, { taskQueue: "x' OR WorkflowType != 'y" })).rejects.toThrow(
    /task queue must be a plain name/,
  );
  await expect(approvalsAcross(h.client, { since: 'soon' })).rejects.toThrow(
    '--since must be a duration such as 30m, 24h or 7d, got "soon"',
  );
});

test('the approvals command: --count, --json, --status, the global --task-queue, and a bad --since', async () => {
  expect(plans).toHaveLength(RUNS); // runs of the test above
  // Commander's own errors become rejections (exitOverride) and stay off the test output.
  const program = new Command('countersign')
    .option('--task-queue <queue>')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  addApprovalsCommand(program, async () => ({ client: h.client, runner }));
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      await program.parseAsync(['--task-queue', h.taskQueue, 'approvals', ...args], { from: 'user' });
    } finally {
      spy.mockRestore();
    }
    return out.join('');
  };
  expect(await cli('--count')).toBe(`${RUNS}\n`);
  expect(JSON.parse(await cli('--count', '--json', '--status', 'pending'))).toEqual({ count: 11 });
  const rejected = JSON.parse(await cli('--json', '--status', 'rejected', '--approver', 'bob')) as ApprovalRecord[];
  expect(rejected).toHaveLength(11);
  const text = await cli('--tool', 'send_email', '--status', 'approved', '--approver', 'ann');
  const lines = text.trimEnd().split('\n');
  expect(lines.length).toBe(plans.filter((p) => p.tool === 'send_email' && p.approver === 'ann').length + 1);
  expect(lines[0]).toMatch(/^approved {2}send_email \(call call-\d+\) in approvals-\d+-[\w-]+ by ann at \d{4}-/);
  expect(lines.at(-1)).toMatch(/^\d+ approvals? in \d+ run\(s\): \d+ approved$/);
  await expect(cli('--since', 'yesterday')).rejects.toThrow(/--since must be a duration/);
  await expect(cli('--status', 'maybe')).rejects.toThrow(/Allowed choices are pending, approved/);
});

test('a run whose task queue has no worker: one clear error naming the run and the queue', async () => {
  const taskQueue = `nobody-${h.taskQueue}`;
  const workflowId = newId('approvals-no-worker');
  await h.client.workflow.start(WORKFLOW_TYPE, {
    workflowId,
    taskQueue,
    args: [{ agent: 'ledger-clerk', input: 'x' }],
  });
  try {
    // A short deadline: the server answers a query nobody polls for only when the call's time is nearly up (30 s by default).
    const err = await eventually(() =>
      h.client
        .withDeadline(Date.now() + 5000, () => approvalsAcross(h.client, { taskQueue }))
        .then(
          (r) => (r.length ? new Error('unexpected records') : undefined), // not listed yet
          (e: Error) => e,
        ),
    );
    expect(err.name).toBe('CountersignError');
    expect(err.message).toMatch(
      new RegExp(
        `^could not read the audit of run ${workflowId}: .+ \\(queries on runs need a worker on task queue ${taskQueue}\\)$`,
      ),
    );
    expect(err.message).not.toContain('\n');
  } finally {
    await h.client.workflow.getHandle(workflowId).terminate('test over');
  }
});
