// Approvals across runs, open and closed, read from the approvals ledger (storage/ledger/): every audit entry the
// runs (and the reviews workflow) wrote, folded into one record per call. No worker and no replay: a run whose task
// queue has no worker, or whose history is past the namespace's retention, reads like any other. Temporal is asked
// only whether the runs that still show a waiting call are running (a run cut off by the server wrote no close).
import type { Client } from '@temporalio/client';
import { type ApprovalFilter, type ApprovalRecord, recordTime } from '../../core/approvals/approvalHistory';
import type { ComplianceReport, LedgerPage, LedgerQuery, LedgerStore } from '../../storage/ledger/ledgerStore';
import { CountersignError } from '../errors';
import { QUERY_NAME, QUEUE_NAME, checkQueryValues, forEachLimited } from '../visibility';
import { withLedger } from './ledgerAccess';
import { type RunsElsewhere, elsewhereLine, runsWrittenElsewhere } from './ledgerHistory';
import { reportPeriod, sinceIso, timeIso } from './reportPeriod';
import { settleReport } from './reportSettling';

export { sinceIso };

export interface ApprovalsQuery extends Omit<ApprovalFilter, 'sinceIso'> {
  /** Only calls decided (or, still pending, requested) within this long ('7d', '24h', '30m') or since this ISO date. */
  since?: string;
  /** Only calls decided (or requested) before this: a duration back from now, or an ISO date (exclusive). */
  until?: string;
  /** Only runs on this task queue (e.g. one deployment's, or a test's). */
  taskQueue?: string;
  /** Kept for callers of 1.0: the reviews are read from the ledger, whichever reviews workflow wrote them. */
  reviewsWorkflowId?: string;
  /** The ledger to read (default: the one COUNTERSIGN_LEDGER_URL names, opened for this read). */
  ledger?: LedgerStore;
}

export interface ApprovalsPageQuery extends ApprovalsQuery {
  /** At most this many records (default 1,000; at most 10,000). */
  limit?: number;
  /** The `next` cursor of the page before. */
  after?: string;
}

/** Records read per page by approvalsAcross. */
const PAGE = 5_000;
const MAX_LIMIT = 10_000;
/** Runs asked at once whether they still run. */
const IN_FLIGHT = 8;
const CURSOR = /^[\w-]{1,2000}$/;

/** The ledger's query for `f`: values checked and times resolved, each problem in one line. */
export function ledgerQueryOf(f: ApprovalsQuery, now = Date.now()): LedgerQuery {
  checkQueryValues([
    ['agent', f.agent, QUERY_NAME],
    ['tool', f.tool, QUERY_NAME],
    ['task queue', f.taskQueue, QUEUE_NAME],
  ]);
  const since = f.since === undefined ? undefined : timeIso('--since', f.since, now);
  const until = f.until === undefined ? undefined : timeIso('--until', f.until, now);
  if (since && until && since >= until)
    throw new CountersignError(`--since (${since}) must be before --until (${until})`);
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.tool ? { tool: f.tool } : {}),
    ...(f.approver ? { approver: f.approver } : {}),
    ...(since ? { sinceIso: since } : {}),
    ...(until ? { untilIso: until } : {}),
    ...(f.taskQueue ? { taskQueue: f.taskQueue } : {}),
  };
}

/** `--limit`: a whole number from 1 to 10,000. */
export function limitOf(limit: number | string | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const n = typeof limit === 'number' ? limit : /^\d+$/.test(limit) ? Number(limit) : NaN;
  if (!(Number.isInteger(n) && n >= 1 && n <= MAX_LIMIT))
    throw new CountersignError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limit)}`);
  return n;
}

/** `--after`: the opaque cursor a page gave (base64url); anything else is refused before reading. */
export function checkCursor(after: string | undefined): void {
  if (after !== undefined && !CURSOR.test(after))
    throw new CountersignError(`--after must be the cursor a page printed last, got ${JSON.stringify(after)}`);
}

/**
 * Which of these runs have ended (or are gone past retention), by visibility: no worker needed. A call the ledger
 * shows waiting in such a run was cut off by the server (terminated, timed out) and counts as cancelled.
 */
export async function endedRuns(client: Client | undefined, workflowIds: Iterable<string>): Promise<Set<string>> {
  const ended = new Set<string>();
  if (!client) return ended;
  await forEachLimited([...new Set(workflowIds)], IN_FLIGHT, async (id) => {
    try {
      if ((await client.workflow.getHandle(id).describe()).status.name !== 'RUNNING') ended.add(id);
    } catch (err) {
      if ((err as Error)?.name === 'WorkflowNotFoundError') ended.add(id);
      else throw err;
    }
  });
  return ended;
}

/** `records` with the waiting calls of ended runs as cancelled (the fold's rule for a run cut off while it waited). */
async function settled(client: Client | undefined, records: ApprovalRecord[]): Promise<ApprovalRecord[]> {
  const waiting = records.filter((r) => r.status === 'pending');
  if (!waiting.length) return records;
  const ended = await endedRuns(
    client,
    waiting.map((r) => r.workflowId),
  );
  return records.map((r) => (r.status === 'pending' && ended.has(r.workflowId) ? { ...r, status: 'cancelled' } : r));
}

/**
 * One page of the approval records matching `f`, oldest first (by decision, else request); `next` is the cursor of
 * the page after, absent on the last. A run's waiting calls show `cancelled` once it has ended; with `status:
 * 'pending'` they are left out of the page.
 */
export async function approvalsPage(client: Client | undefined, f: ApprovalsPageQuery = {}): Promise<LedgerPage> {
  const q = { ...ledgerQueryOf(f), ...(f.limit !== undefined ? { limit: limitOf(f.limit) } : {}) };
  checkCursor(f.after);
  return withLedger(f.ledger, async (ledger) => {
    const page = await ledger.approvals({ ...q, ...(f.after ? { after: f.after } : {}) });
    const records = (await settled(client, page.records)).filter((r) => !f.status || r.status === f.status);
    return { records, ...(page.next ? { next: page.next } : {}) };
  });
}

/** Every record matching `q` in the ledger, page after page. */
async function allRecords(ledger: LedgerStore, q: LedgerQuery): Promise<ApprovalRecord[]> {
  const records: ApprovalRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await ledger.approvals({ ...q, limit: PAGE, ...(after ? { after } : {}) });
    records.push(...page.records);
    if (!page.next) return records;
    after = page.next;
  }
}

const byTime = (a: ApprovalRecord, b: ApprovalRecord) =>
  (recordTime(a) ?? '').localeCompare(recordTime(b) ?? '') ||
  a.workflowId.localeCompare(b.workflowId) ||
  a.callId.localeCompare(b.callId);

/** Every approval record of every agentRun matching `f`, oldest first (by decision, else request). */
export async function approvalsAcross(client: Client | undefined, f: ApprovalsQuery = {}): Promise<ApprovalRecord[]> {
  const q = ledgerQueryOf(f);
  return withLedger(f.ledger, async (ledger) => {
    // `cancelled` also takes the waiting calls of runs that have ended since; `pending` leaves them out.
    const waitingToo = f.status === 'cancelled' ? await allRecords(ledger, { ...q, status: 'pending' }) : [];
    const records = await settled(client, [...(await allRecords(ledger, q)), ...waitingToo]);
    const kept = records.filter((r) => !f.status || r.status === f.status);
    return waitingToo.length ? kept.sort(byTime) : kept;
  });
}

/**
 * The runs matching `f`'s task queue (and since) on Temporal that wrote to another ledger than the one read, each
 * other ledger in one line (`3 run(s) on task queue q: written to ledger <id>, not this one (<id>): set …`): what
 * the records read leave out. None without Temporal, or for results recorded before ledgers had ids.
 */
export async function approvalsElsewhere(
  client: Client | undefined,
  f: Pick<ApprovalsQuery, 'since' | 'taskQueue' | 'ledger'> = {},
): Promise<Array<RunsElsewhere & { line: string }>> {
  if (!client) return [];
  const q = ledgerQueryOf({ since: f.since, taskQueue: f.taskQueue });
  const clauses = [
    ...(q.taskQueue ? [`TaskQueue = '${q.taskQueue}'`] : []),
    ...(q.sinceIso ? [`(ExecutionStatus = 'Running' OR CloseTime >= '${q.sinceIso}')`] : []),
  ];
  return withLedger(f.ledger, async (ledger) =>
    (await runsWrittenElsewhere(client, ledger, clauses)).map((e) => ({
      ...e,
      line: `${e.atLeast ? 'at least ' : ''}${e.runs} run(s) ${q.taskQueue ? `on task queue ${q.taskQueue}` : 'in the namespace'} ${elsewhereLine(e.ledgerId, ledger.id!)}`,
    })),
  );
}

/** What `approvals report` and the inbox's report page cover: a month, or since/until, and the usual filters. */
export interface ReportQuery extends Omit<ApprovalsQuery, 'since' | 'until' | 'status'> {
  /** `2026-11`: that month, in UTC. */
  month?: string;
  since?: string;
  until?: string;
}

/**
 * The compliance report over the calls matching `f`: totals by outcome, approval rate, time to decision (p50, p95),
 * and the same by tool and by approver, aggregated by the ledger. Waiting calls of runs that have ended count as
 * cancelled, as in the records.
 */
export async function complianceReport(client: Client | undefined, f: ReportQuery = {}): Promise<ComplianceReport> {
  const period = reportPeriod(f);
  const q = { ...ledgerQueryOf({ ...f, since: undefined, until: undefined }), ...period };
  return withLedger(f.ledger, async (ledger) => {
    const report = await ledger.report(q);
    if (!report.byOutcome.pending) return report;
    const waiting = await allRecords(ledger, { ...q, status: 'pending' });
    const ended = await endedRuns(
      client,
      waiting.map((r) => r.workflowId),
    );
    return settleReport(
      report,
      waiting.filter((r) => ended.has(r.workflowId)),
    );
  });
}

/** The newest `n` decided records matching `f`, newest first, and how many match in all (the inbox's history). */
export async function newestDecided(
  f: ApprovalsQuery,
  n: number,
): Promise<{ records: ApprovalRecord[]; total: number }> {
  const q: LedgerQuery = { ...ledgerQueryOf(f), decidedOnly: true };
  return withLedger(f.ledger, async (ledger) => {
    const [page, report] = await Promise.all([
      ledger.approvals({ ...q, newestFirst: true, limit: n }),
      ledger.report(q),
    ]);
    return { records: page.records, total: report.total };
  });
}
