// The approvals ledger's readers with every worker stopped: runs on two task queues (two workers) write the ledger
// as they are decided; then no worker runs, and `countersign approvals` (filters, --until, paging), `approvals
// report` (JSON numbers checked by hand, CSV) and the inbox's /history and /report answer from the ledger alone.
// `ledger backfill` writes in runs whose worker kept no ledger (the same records; twice = nothing new), and
// `ledger verify` names a row changed by hand in the SQLite file.
import { AgentRegistry, defineAgent } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import { startInbox } from '../../servers/inbox/inboxServer';
import type { ComplianceReport } from '../../storage/ledger/ledgerStore';
import { cliEnv, countersign, countersignExit } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testLedgerUrl } from '../support/ledgerFile';
import { editRecords, tampererOf } from '../support/ledgerStores';
import { freePort } from '../support/processes';

jest.setTimeout(300_000);

const clerk = defineAgent({ name: 'ledger-clerk', instructions: 'test', tools: [sendEmail, deleteRecord] });
const registry = () => new AgentRegistry([clerk]);
const ledgerUrl = testLedgerUrl();

let a: Harness; // task queue A, writes the ledger
let b: Harness; // task queue B, writes the ledger
let off: Harness; // task queue C, its worker keeps no ledger (COUNTERSIGN_LEDGER_URL=off)
beforeAll(async () => {
  a = await startHarness({ registry: registry(), ledgerUrl });
  b = await startHarness({ registry: registry(), ledgerUrl });
  off = await startHarness({ registry: registry() });
});
afterAll(async () => {
  for (const h of [a, b, off]) await h?.close();
});

type Plan = {
  h: () => Harness;
  tool: 'send_email' | 'delete_record';
  decision?: 'approve' | 'reject';
  approver?: string;
};
const PLANS: Plan[] = [
  { h: () => a, tool: 'send_email', decision: 'approve', approver: 'ann' },
  { h: () => a, tool: 'delete_record', decision: 'reject', approver: 'bob' },
  { h: () => a, tool: 'send_email' }, // left waiting
  { h: () => b, tool: 'send_email', decision: 'approve', approver: 'bob' },
  { h: () => b, tool: 'delete_record', decision: 'approve', approver: 'ann' },
];
const toolCall = (tool: Plan['tool'], callId: string) =>
  tool === 'send_email'
    ? { name: tool, arguments: { to: 'a@example.com', subject: 'S', body: 'b' }, callId }
    : { name: tool, arguments: { record_id: 'R1' }, callId };

/** Starts a run that pauses on one call, and decides it as planned. */
async function decided(h: Harness, p: Omit<Plan, 'h'>, i: number): Promise<{ workflowId: string; callId: string }> {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const workflowId = newId(`ledger-reader-${i}`);
  const callId = `c${i}`;
  h.model.script(workflowId, [{ toolCalls: [toolCall(p.tool, callId)] }, { text: 'done' }]);
  await runner.startOnly('ledger-clerk', 'do it', { workflowId });
  expect((await runner.nextPause(workflowId)).interruptions.map((x) => x.callId)).toEqual([callId]);
  if (p.decision) {
    await runner.decide(workflowId, [{ callId, decision: p.decision, approver: p.approver }]);
    expect((await runner.nextPause(workflowId)).status).toBe('Completed');
  }
  return { workflowId, callId };
}

// A reviews workflow of this suite's own (the backfill reads it): none is ever started, so it has no reviews.
const env = () => cliEnv({ COUNTERSIGN_REVIEWS_WORKFLOW_ID: newId('no-reviews') });
const cli = async (...args: string[]) => (await countersign(args, env())).stdout;
const approvalsOf = async (queue: string, ...args: string[]) =>
  JSON.parse(await cli('--task-queue', queue, 'approvals', '--json', ...args)) as ApprovalRecord[];
const month = new Date().toISOString().slice(0, 7);

const statusOf = (p: Plan) =>
  p.decision === 'approve' ? 'approved' : p.decision === 'reject' ? 'rejected' : 'pending';
const runs: Array<{ workflowId: string; callId: string; plan: Plan }> = [];

test('runs on two task queues write the ledger as they are decided', async () => {
  for (const [i, plan] of PLANS.entries()) runs.push({ ...(await decided(plan.h(), plan, i)), plan });
  // The ledger is written after each decision, never before it: wait until both queues' runs are all there.
  for (const h of [a, b]) {
    const mine = runs.filter((r) => r.plan.h() === h);
    const want = mine.map((r) => `${r.workflowId} ${statusOf(r.plan)}`).sort();
    await eventually(async () => {
      const got = (await approvalsOf(h.taskQueue)).map((r) => `${r.workflowId} ${r.status}`).sort();
      return JSON.stringify(got) === JSON.stringify(want) || undefined;
    }, 60_000);
  }
});

test('ledger backfill writes in runs whose worker kept no ledger: the same records, and twice writes nothing', async () => {
  const late = await decided(off, { tool: 'send_email', decision: 'approve', approver: 'cy' }, 9);
  expect(await approvalsOf(off.taskQueue)).toEqual([]);
  const first = JSON.parse(await cli('--task-queue', off.taskQueue, 'ledger', 'backfill', '--since', '1h', '--json'));
  expect(first).toMatchObject({ runs: 1, skipped: 0 });
  expect(first.written).toBeGreaterThanOrEqual(1);
  const [record] = await approvalsOf(off.taskQueue);
  expect(record).toMatchObject({
    workflowId: late.workflowId,
    callId: late.callId,
    agent: 'ledger-clerk',
    toolName: 'send_email',
    status: 'approved',
    approvers: ['cy'],
    decidedAt: expect.any(String),
  });
  // Again, and over queue A's runs (which their worker wrote): every entry is already kept, under the same keys.
  expect(JSON.parse(await cli('--task-queue', off.taskQueue, 'ledger', 'backfill', '--json'))).toMatchObject({
    runs: 1,
    written: 0,
  });
  const before = await approvalsOf(a.taskQueue);
  const overA = JSON.parse(await cli('--task-queue', a.taskQueue, 'ledger', 'backfill', '--json'));
  expect(overA).toMatchObject({ runs: 3, written: 0 });
  expect(overA.skipped).toBeGreaterThanOrEqual(2);
  expect(await approvalsOf(a.taskQueue)).toEqual(before);
  // Bad input: one line, exit 2, nothing read.
  expect(await countersignExit(['ledger', 'backfill', '--since', 'last week'], env())).toMatchObject({
    code: 2,
    stderr: 'countersign: --since must be a duration such as 30m, 24h or 7d, got "last week"\n',
  });
});

test('with every worker stopped: approvals (filters, --until, paging), the report, and the inbox answer', async () => {
  await Promise.all([a, b, off].map((h) => h.stopWorker()));
  const onA = runs.filter((r) => r.plan.h() === a);

  // Both queues, and each alone; filters as before.
  const all = await approvalsOf(a.taskQueue);
  const statusOf = (p: Plan) =>
    p.decision === 'approve' ? 'approved' : p.decision === 'reject' ? 'rejected' : 'pending';
  expect(all.map((r) => [r.workflowId, r.status, r.approvers]).sort()).toEqual(
    onA.map((r) => [r.workflowId, statusOf(r.plan), r.plan.approver ? [r.plan.approver] : []]).sort(),
  );
  expect(all).toHaveLength(3);
  expect(await approvalsOf(b.taskQueue)).toHaveLength(2);
  expect((await approvalsOf(b.taskQueue, '--approver', 'ann')).map((r) => r.toolName)).toEqual(['delete_record']);
  expect((await approvalsOf(a.taskQueue, '--status', 'pending')).map((r) => r.workflowId)).toEqual([
    onA[2]!.workflowId,
  ]);
  expect(await approvalsOf(a.taskQueue, '--until', '2020-01-01')).toEqual([]);
  expect(await approvalsOf(a.taskQueue, '--since', '1h', '--until', '2999-01-01')).toHaveLength(3);
  const page1 = (await cli('--task-queue', a.taskQueue, 'approvals', '--limit', '2')).trimEnd().split('\n');
  expect(page1).toHaveLength(5); // the ledger read, two records, the summary, the cursor
  expect(page1[0]).toMatch(/^approvals ledger: sqlite \/.*ledger\.db \(id [0-9a-f]{16}\)$/);
  const after = /^next: --after (\S+)$/.exec(page1.at(-1)!)![1]!;
  const page2 = (await cli('--task-queue', a.taskQueue, 'approvals', '--limit', '2', '--after', after))
    .trimEnd()
    .split('\n');
  expect(page2).toHaveLength(4);
  expect(page2.at(-1)).toBe('next: none (the last page)');
  expect(await countersignExit(['approvals', '--limit', 'lots'], env())).toMatchObject({ code: 2 });

  // The report of queue A, checked by hand: 1 approved (ann), 1 rejected (bob), 1 pending; rate 1/2.
  const report = JSON.parse(
    await cli('--task-queue', a.taskQueue, 'approvals', 'report', '--month', month, '--json'),
  ) as ComplianceReport;
  const waits = all.filter((r) => r.decidedAt).map((r) => Date.parse(r.decidedAt!) - Date.parse(r.requestedAt!));
  expect(report).toMatchObject({
    total: 3,
    byOutcome: { approved: 1, rejected: 1, pending: 1 },
    approvalRate: 0.5,
    byTool: {
      send_email: { total: 2, byOutcome: { approved: 1, pending: 1 }, approvalRate: 1 },
      delete_record: { total: 1, byOutcome: { rejected: 1 }, approvalRate: 0 },
    },
    byApprover: { ann: { total: 1, approvalRate: 1 }, bob: { total: 1, approvalRate: 0 } },
  });
  expect(report.timeToDecisionMs.p50).toBeGreaterThanOrEqual(Math.min(...waits) - 1);
  expect(report.timeToDecisionMs.p95).toBeLessThanOrEqual(Math.max(...waits) + 1);
  const annWait = all.find((r) => r.approvers[0] === 'ann')!;
  expect(report.byApprover.ann!.timeToDecisionMs.p50).toBe(
    Date.parse(annWait.decidedAt!) - Date.parse(annWait.requestedAt!),
  );
  const csv = (await cli('--task-queue', a.taskQueue, 'approvals', 'report', '--month', month, '--csv')).split('\r\n');
  expect(csv[0]).toMatch(/^group,name,total,pending,approved,rejected,/);
  expect(csv.slice(1, -1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
    'total,,3',
    'tool,delete_record,1',
    'tool,send_email,2',
    'approver,ann,1',
    'approver,bob,1',
  ]);
  const text = await cli('--task-queue', b.taskQueue, 'approvals', 'report', '--month', month);
  expect(text).toContain('2 calls');
  expect(text).toContain('approval rate: 100.0% of decided calls');
  expect(await countersignExit(['approvals', 'report', '--month', '2026-13'], env())).toMatchObject({
    code: 2,
    stderr: 'countersign: --month must be a month such as 2026-11 (YYYY-MM), got "2026-13"\n',
  });

  // The inbox of queue A: its history and its report, from the ledger.
  const inbox = await startInbox({
    runner: new Runner(a.client, { taskQueue: a.taskQueue }),
    port: await freePort(),
    approverHeader: 'X-Forwarded-User',
  });
  try {
    const get = async (path: string) => {
      const res = await fetch(`${inbox.url}${path}`, { headers: { 'X-Forwarded-User': 'ann' } });
      return { status: res.status, text: await res.text() };
    };
    const history = await get('/history');
    expect(history.status).toBe(200);
    expect(history.text).toContain('2 decided calls');
    for (const r of onA.slice(0, 2)) expect(history.text).toContain(r.workflowId);
    expect(history.text).not.toContain(runs[3]!.workflowId); // queue B's
    const page = await get(`/report?month=${month}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<b data-total>3</b>');
    expect(page.text).toContain('<dd data-rate>50.0%</dd>');
    expect(page.text).toMatch(/<tr data-name="send_email">.*?<td data-label="calls">2<\/td>/s);
    const bad = await get('/report?month=soon');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('--month must be a month such as 2026-11');
  } finally {
    await inbox.close();
  }
});

test('ledger verify: clean, then a row changed by hand in the SQLite file is named (exit 1)', async () => {
  // The dev server is shared with other suites, whose runs write other ledgers: each of this suite's queues is
  // compared with history on its own (--task-queue); the chains are checked every time.
  for (const queue of [a.taskQueue, b.taskQueue]) {
    const clean = await countersignExit(['--task-queue', queue, 'ledger', 'verify'], env());
    expect(clean).toMatchObject({ code: 0, stderr: '' });
    expect(clean.stdout).toMatch(
      /^approvals ledger: sqlite \S+ \(id [0-9a-f]{16}\)\nledger verified: \d+ chain\(s\), \d+ record\(s\), [1-9]\d* compared with their run's history; no problems\n$/,
    );
  }
  const target = runs[0]!;
  const changed = await editRecords(tampererOf(ledgerUrl), 'sqlite', `workflow_id = '${target.workflowId}'`, (json) =>
    json.replace('"ann"', '"mallory"'),
  );
  expect(changed).toBeGreaterThanOrEqual(1);
  const found = await countersignExit(['--task-queue', target.plan.h().taskQueue, 'ledger', 'verify'], env());
  expect(found.code).toBe(1);
  const lines = found.stderr.trimEnd().split('\n');
  expect(lines.some((l) => l.startsWith(`countersign: changed: run ${target.workflowId} (chain `))).toBe(true);
  expect(lines.at(-1)).toMatch(/^countersign: \d+ problem\(s\) in /);
  // Prune deletes nothing younger than its age: every call here was decided minutes ago.
  const kept = await approvalsOf(b.taskQueue);
  expect(JSON.parse(await cli('ledger', 'prune', '--older-than', '1d', '--json'))).toMatchObject({ removed: 0 });
  expect(await approvalsOf(b.taskQueue)).toEqual(kept);
  expect(await countersignExit(['ledger', 'prune', '--older-than', '2h'], env())).toMatchObject({
    code: 2,
    stderr: 'countersign: --older-than must be at least 1d, got "2h": prune keeps the last day\n',
  });
});
