// Approvals across runs read from the approvals ledger: 50 runs' entries as their workers write them (store.write,
// so no model turns and no worker), decided with a mix (approved by ann or bob, rejected, left pending, cut off by
// terminate). The reader must count what was done, agree with the ledger's own report, filter, page and order, and
// read runs whose task queue has no worker; the approvals command the same, and with Temporal out of reach. Only the
// pending and cut-off runs exist in Temporal (the reader asks it whether a run that still shows a waiting call has
// ended). Reads of one ledger on its own (the newest decided, verify's comparison) are in ledgerQueries.test.ts.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Command } from 'commander';
import { approvalsAcross, approvalsPage, complianceReport } from '../../client/approvals/approvalsReport';
import { addApprovalsCommand } from '../../cli/approvalsCommand';
import type { ApprovalRecord, ApprovalStatus } from '../../core/approvals/approvalHistory';
import { WORKFLOW_TYPE } from '../../contract/messages';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { newId } from '../support/fixtures';
import { testLedgerUrl } from '../support/ledgerFile';
import { testAddress } from '../support/testServer';
import { cliEnv, countersignExit } from '../support/countersignCli';

jest.setTimeout(120_000);

const RUNS = 50;
const taskQueue = `test-${randomUUID()}`; // no worker ever polls it
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

let connection: Connection;
let client: Client;
let ledger: LedgerStore;
beforeAll(async () => {
  ledger = (await openLedger(testLedgerUrl()))!;
  connection = await Connection.connect({ address: testAddress() });
  client = new Client({ connection });
});
afterAll(async () => {
  for (const p of plans.filter((x) => x.expect === 'pending'))
    await client.workflow
      .getHandle(p.workflowId)
      .terminate('test over')
      .catch(() => undefined);
  await ledger?.close();
  await connection?.close();
});

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

const countBy = (records: Array<{ status: string }>) =>
  records.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

const plans: Plan[] = [];

/** The run's writes as its worker makes them: the waiting call, then (decided) its entry. */
async function record(p: Plan, i: number): Promise<void> {
  let chainId: string = randomUUID();
  if (p.expect === 'pending' || p.expect === 'cancelled') {
    // A run on a queue no worker polls: running (its call waits) or terminated (cut off while it waited).
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      workflowId: p.workflowId,
      taskQueue,
      args: [{ agent: 'ledger-clerk', input: 'x' }],
    });
    chainId = handle.firstExecutionRunId;
    if (p.expect === 'cancelled') await handle.terminate('cut off while waiting');
  }
  const key = { workflowId: p.workflowId, chainId, taskQueue, agent: 'ledger-clerk' };
  const requestedAt = at(i * 60_000);
  await ledger.write({ ...key, pending: [{ callId: p.callId, toolName: p.tool, requestedAt }] });
  if (!p.approver) return;
  const decision = p.expect === 'approved' ? 'approved' : 'rejected';
  // Time to decision: (i + 1) seconds.
  const entry = { seq: 1, callId: p.callId, toolName: p.tool, decision, approver: p.approver, via: 'update' } as const;
  await ledger.write({
    ...key,
    entries: [{ ...entry, requestedAt, decidedAt: at(i * 60_000 + (i + 1) * 1000) }],
    pending: [],
  });
}

test('approvals across 50 runs from the ledger: counts per status, the same as its report; filters, order, paging', async () => {
  for (let i = 0; i < RUNS; i++)
    plans.push({ workflowId: newId(`approvals-${i}`), callId: `call-${i}`, ...planFor(i) });
  await Promise.all(plans.map((p, i) => record(p, i)));
  const done = countBy(plans.map((p) => ({ status: p.expect })));
  expect(done).toEqual({ cancelled: 4, approved: 24, rejected: 11, pending: 11 });

  const started = Date.now();
  const records = await approvalsAcross(client, { taskQueue });
  expect(Date.now() - started).toBeLessThan(10_000); // no run is replayed; the queue has no worker at all
  expect(records).toHaveLength(RUNS);
  expect(countBy(records)).toEqual(done);
  for (const p of plans)
    expect(records.find((r) => r.workflowId === p.workflowId)).toMatchObject({
      callId: p.callId,
      agent: 'ledger-clerk',
      toolName: p.tool,
      status: p.expect,
      approvers: p.approver ? [p.approver] : [],
    });

  // The same counts from the ledger's report (the runs cut off while waiting moved from pending to cancelled).
  const report = await complianceReport(client, { taskQueue });
  expect(report.total).toBe(RUNS);
  expect(report.byOutcome).toEqual(done);
  expect(report.approvalRate).toBeCloseTo(24 / 39, 6);
  expect(report.byTool.delete_record!.total).toBe(25);
  expect(report.byApprover.bob!.byOutcome).toEqual({ approved: 12, rejected: 11 });

  // Newest last: by decision time, else request time.
  const times = records.map((r) => r.decidedAt ?? r.requestedAt ?? '');
  expect([...times].sort()).toEqual(times);

  const ids = (rs: ApprovalRecord[]) => rs.map((r) => r.workflowId).sort();
  const planned = (keep: (p: Plan) => boolean) =>
    plans
      .filter(keep)
      .map((p) => p.workflowId)
      .sort();
  expect(ids(await approvalsAcross(client, { taskQueue, tool: 'delete_record' }))).toEqual(
    planned((p) => p.tool === 'delete_record'),
  );
  expect(ids(await approvalsAcross(client, { taskQueue, approver: 'bob' }))).toEqual(
    planned((p) => p.approver === 'bob'),
  );
  expect(
    ids(await approvalsAcross(client, { taskQueue, approver: 'bob', status: 'rejected', tool: 'send_email' })),
  ).toEqual(planned((p) => p.approver === 'bob' && p.expect === 'rejected' && p.tool === 'send_email'));
  expect(ids(await approvalsAcross(client, { taskQueue, status: 'cancelled' }))).toEqual(
    planned((p) => p.expect === 'cancelled'),
  );
  expect(ids(await approvalsAcross(client, { taskQueue, status: 'pending' }))).toEqual(
    planned((p) => p.expect === 'pending'),
  );
  expect(await approvalsAcross(client, { taskQueue, agent: 'email-assistant' })).toEqual([]);
  // Since and until: ISO dates and durations (every record is from 2026-11-20, long before now).
  expect(
    await approvalsAcross(client, { taskQueue, since: '2026-11-20T10:20:00Z', until: '2026-11-20T10:30:00Z' }),
  ).toHaveLength(10);
  expect(await approvalsAcross(client, { taskQueue, until: '1h' })).toHaveLength(RUNS);
  await expect(approvalsAcross(client, { taskQueue: "x' OR WorkflowType != 'y" })).rejects.toThrow(
    /task queue must be a plain name/,
  );
  await expect(approvalsAcross(client, { since: 'soon' })).rejects.toThrow(
    '--since must be a duration such as 30m, 24h or 7d, got "soon"',
  );

  // Pages of 20, oldest first, each record once.
  const paged: ApprovalRecord[] = [];
  for (let after: string | undefined, n = 0; n < 10; n++) {
    const page = await approvalsPage(client, { taskQueue, limit: 20, ...(after ? { after } : {}) });
    paged.push(...page.records);
    if (!(after = page.next)) break;
  }
  expect(paged).toEqual(records);
});

test('the approvals command: --count, --json, --status, --until, paging, the global --task-queue, and bad input', async () => {
  expect(plans).toHaveLength(RUNS); // runs of the test above
  // Commander's own errors become rejections (exitOverride) and stay off the test output.
  const program = new Command('countersign')
    .option('--task-queue <queue>')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  addApprovalsCommand(program, async () => ({ client, runner: undefined as never, config: undefined as never }));
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      await program.parseAsync(['--task-queue', taskQueue, 'approvals', ...args], { from: 'user' });
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
  expect(lines.length).toBe(plans.filter((p) => p.tool === 'send_email' && p.approver === 'ann').length + 2);
  expect(lines[0]).toMatch(/^approvals ledger: sqlite \S+ \(id [0-9a-f]{16}\)$/); // which ledger was read
  expect(lines[1]).toMatch(/^approved {2}send_email \(call call-\d+\) in approvals-\d+-[\w-]+ by ann at \d{4}-/);
  expect(lines.at(-1)).toMatch(/^\d+ approvals? in \d+ run\(s\): \d+ approved$/);
  expect(await cli('--count', '--since', '2026-11-20T10:20:00Z', '--until', '2026-11-20T10:30:00Z')).toBe('10\n');

  // A page's last line is the cursor of the next; the last page says so.
  const first = (await cli('--limit', '30')).trimEnd().split('\n');
  expect(first).toHaveLength(33); // the ledger, 30 records, the summary, the cursor
  const cursor = /^next: --after (\S+)$/.exec(first.at(-1)!)?.[1];
  expect(cursor).toBeDefined();
  const second = (await cli('--limit', '30', '--after', cursor!)).trimEnd().split('\n');
  expect(second).toHaveLength(20 + 3);
  expect(second.at(-1)).toBe('next: none (the last page)');
  const json = JSON.parse(await cli('--json', '--limit', '45')) as { records: ApprovalRecord[]; next?: string };
  expect(json.records).toHaveLength(45);
  expect(JSON.parse(await cli('--json', '--limit', '45', '--after', json.next!))).toMatchObject({
    records: expect.any(Array),
  });

  await expect(cli('--since', 'yesterday')).rejects.toThrow(/--since must be a duration/);
  await expect(cli('--limit', '0')).rejects.toMatchObject({ name: 'UsageError' });
  await expect(cli('--after', 'no way')).rejects.toMatchObject({ name: 'UsageError' });
  await expect(cli('--limit', '5', '--after', 'bm90LWEtY3Vyc29y')).rejects.toMatchObject({
    name: 'UsageError',
    message: expect.stringMatching(/^--after "bm90LWEtY3Vyc29y" is not a cursor this ledger gave/),
  });
  await expect(cli('--status', 'maybe')).rejects.toThrow(/Allowed choices are pending, approved/);
  await expect(cli('--status', 'maybe')).rejects.toMatchObject({ name: 'UsageError' }); // one line, exit 2
  await expect(cli('report', '--month', 'soon')).rejects.toMatchObject({
    name: 'UsageError',
    message: '--month must be a month such as 2026-11 (YYYY-MM), got "soon"',
  });
  // The report of the 50 runs through the command, as JSON and CSV.
  const report = JSON.parse(await cli('report', '--since', '2026-11-20', '--until', '2026-11-21', '--json'));
  expect(report).toMatchObject({ total: RUNS, byOutcome: { cancelled: 4, approved: 24, rejected: 11, pending: 11 } });
  const csv = (await cli('report', '--month', '2026-11', '--csv')).split('\r\n');
  expect(csv.slice(0, 2).map((l) => l.split(',').slice(0, 7).join(','))).toEqual([
    'group,name,total,pending,approved,rejected,expired',
    'total,,50,11,24,11,0',
  ]);
  expect(csv.slice(2, -1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
    'tool,delete_record,25',
    'tool,send_email,25',
    'approver,ann,12',
    'approver,bob,23',
  ]);
});

test('with Temporal out of reach, the command reads the ledger alone and says so in one line', async () => {
  const { code, stdout, stderr } = await countersignExit(
    ['--task-queue', taskQueue, 'approvals', '--status', 'pending', '--count'],
    cliEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' }),
  );
  // The runs cut off while they waited cannot be told apart without Temporal: they show as the ledger has them.
  expect({ code, stdout }).toEqual({ code: 0, stdout: '15\n' });
  expect(stderr).toMatch(/^countersign: cannot reach Temporal at 127\.0\.0\.1:1 .*: reading the ledger alone .*\n$/);
});
