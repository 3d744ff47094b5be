// Reading the approvals ledger's call rows, the same SQL for SQLite and PostgreSQL: the filters of a page or a
// report as one WHERE clause, and pages in keyset order (time, then the row's keys: stable under ties, and never an
// OFFSET, so the thousandth page costs what the first does). The cursor is opaque to callers (base64url JSON). The
// rows name their chain by id (schema 6): ties are ordered by the chain's keys, joined from ledger_chains.
import type { ApprovalRecord, ApprovalStatus } from '../../core/approvals/approvalHistory';
import { canonicalApprover } from '../../contract/approverName';
import { callTimes, isoTime } from './ledgerAppend';
import { CHAINS_OF_RUN, withKeys } from './ledgerChainIds';
import type { SchemaRunner } from './ledgerSchema';
import type { LedgerPage, LedgerPageQuery, LedgerQuery } from './ledgerStore';

export const DEFAULT_PAGE = 1_000;
const MAX_PAGE = 10_000;

/** `ledger_calls c` rows matching `q` (only rows that make a record). */
export function whereOf(q: LedgerQuery): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => (clauses.push(sql), params.push(...values));
  if (q.status) add('c.status = ?', q.status);
  else add(q.decidedOnly ? "c.status IS NOT NULL AND c.status <> 'pending'" : 'c.status IS NOT NULL');
  if (q.agent) add('c.agent = ?', q.agent);
  if (q.tool) add('c.tool = ?', q.tool);
  if (q.taskQueue) add('c.task_queue = ?', q.taskQueue);
  if (q.workflowId) add(`c.chain IN ${CHAINS_OF_RUN}`, q.workflowId);
  if (q.approver)
    add(
      `EXISTS (SELECT 1 FROM ledger_call_approvers a WHERE a.chain = c.chain AND a.call_id = c.call_id
        AND a.approver_canonical = ?)`,
      canonicalApprover(q.approver),
    );
  if (q.sinceIso !== undefined) add('c.event_at >= ?', timeArg(q.sinceIso, 'since'));
  if (q.untilIso !== undefined) add(`c.event_at < ? AND c.event_at <> ''`, timeArg(q.untilIso, 'until'));
  return { sql: clauses.join(' AND '), params };
}

function timeArg(value: string, name: string): string {
  if (Number.isNaN(Date.parse(value))) throw new Error(`${name} ${JSON.stringify(value)} is not an ISO-8601 time`);
  return isoTime(value)!;
}

type Cursor = [string, string, string, string];

const encodeCursor = (c: Cursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

function decodeCursor(after: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(c) && c.length === 4 && c.every((x) => typeof x === 'string')) return c as Cursor;
  } catch {
    // fall through to the one-line refusal
  }
  throw new Error(`--after ${JSON.stringify(after.slice(0, 40))} is not a cursor this ledger gave (use a page's next)`);
}

export async function pageOf(db: Pick<SchemaRunner, 'all'>, q: LedgerPageQuery): Promise<LedgerPage> {
  const limit = Math.max(1, Math.min(MAX_PAGE, Math.floor(q.limit ?? DEFAULT_PAGE)));
  // One person's calls: the page is picked from their approvers rows alone (they carry the call's filter columns,
  // under the same names; the table is in their page order), then joined to those calls.
  const where = whereOf(q.approver ? { ...q, approver: undefined } : q);
  const params = q.approver ? [canonicalApprover(q.approver), ...where.params] : [...where.params];
  const keys = ['c.event_at', 'h.workflow_id', 'h.chain_id', 'c.call_id'];
  const order = q.newestFirst ? keys.map((k) => `${k} DESC`).join(', ') : keys.join(', ');
  let sql = q.approver
    ? `SELECT c.chain, c.call_id, c.event_at, h.workflow_id, h.chain_id FROM ${withKeys('ledger_call_approvers', 'c')}
       WHERE c.approver_canonical = ? AND ${where.sql}`
    : `SELECT h.workflow_id, h.chain_id, c.* FROM ${withKeys('ledger_calls', 'c')} WHERE ${where.sql}`;
  if (q.after !== undefined) {
    // The time alone first: the index's range, then the ties after the cursor's.
    const cursor = decodeCursor(q.after);
    const [before, after] = q.newestFirst ? ['<=', '<'] : ['>=', '>'];
    sql += ` AND c.event_at ${before} ? AND (${keys.join(', ')}) ${after} (?, ?, ?, ?)`;
    params.push(cursor[0], ...cursor);
  }
  sql += ` ORDER BY ${order} LIMIT ${limit + 1}`;
  if (q.approver)
    sql = `SELECT h.workflow_id, h.chain_id, c.* FROM (${sql}) k JOIN ledger_calls c ON c.chain = k.chain
      AND c.call_id = k.call_id JOIN ledger_chains h ON h.id = c.chain ORDER BY ${order}`;
  const rows = await db.all(sql, params);
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return {
    records: shown.map(recordOfRow),
    ...(more && last
      ? { next: encodeCursor([last.event_at, last.workflow_id, last.chain_id, last.call_id].map(String) as Cursor) }
      : {}),
  };
}

/** A call row as the record readers show. */
export function recordOfRow(stored: Record<string, unknown>): ApprovalRecord {
  const r = callTimes(stored);
  const text = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  const requestedAt = text(r.requested_at);
  const decidedAt = text(r.decided_at);
  const path = text(r.path);
  const reviewedAt = text(r.reviewed_at);
  const note = text(r.note);
  return {
    workflowId: String(r.workflow_id),
    callId: String(r.call_id),
    agent: String(r.agent),
    toolName: String(r.tool),
    status: String(r.status) as ApprovalStatus,
    approvers: JSON.parse(String(r.approvers)) as string[],
    ...(requestedAt ? { requestedAt } : {}),
    ...(decidedAt ? { decidedAt } : {}),
    ...(r.verified === null || r.verified === undefined ? {} : { verified: Number(r.verified) === 1 }),
    ...(path ? { path } : {}),
    ...(reviewedAt ? { reviewedAt } : {}),
    ...(note ? { note } : {}),
  };
}
