// The compliance report, aggregated by the database: counts by GROUP BY, time to decision as percentile_cont
// (linear between the two nearest waits) — PostgreSQL's own, and in SQLite the same two rows picked by ROW_NUMBER over
// the indexed wait_ms. A month of a million-record ledger is a few grouped scans, not rows shipped to Node.
import type { Dialect, SchemaRunner } from './ledgerSchema';
import type { ComplianceReport, LedgerQuery, ReportGroup } from './ledgerStore';
import { whereOf } from './ledgerReads';
import { isoTime } from './ledgerAppend';

/** Statuses under which the call ran on a person's (or a rule's) word: approved, auto, grant, timeout that approves. */
const APPROVING = new Set(['approved', 'auto_approved', 'granted', 'timed_out']);
const CALL_JOIN = `ledger_call_approvers a JOIN ledger_calls c ON c.workflow_id = a.workflow_id
  AND c.chain_id = a.chain_id AND c.call_id = a.call_id`;

type Db = Pick<SchemaRunner, 'all'>;
type Waits = { p50: number | null; p95: number | null };

export async function reportOf(db: Db, dialect: Dialect, q: LedgerQuery): Promise<ComplianceReport> {
  const where = whereOf(q);
  const byTool = await counts(
    db,
    `SELECT c.tool AS g, c.status AS s, COUNT(*) AS n FROM ledger_calls c WHERE ${where.sql} GROUP BY c.tool, c.status`,
    where.params,
  );
  const byWho = await counts(
    db,
    `SELECT a.approver_canonical AS g, c.status AS s, COUNT(*) AS n, MIN(a.approver) AS name FROM ${CALL_JOIN}
     WHERE ${where.sql} GROUP BY a.approver_canonical, c.status`,
    where.params,
  );
  const total = new Map<string, number>();
  for (const outcomes of byTool.counts.values()) for (const [s, n] of outcomes) total.set(s, (total.get(s) ?? 0) + n);

  const waits = (group: string | undefined, from: string) => percentiles(db, dialect, group, from, where);
  const [all, tools, who] = await Promise.all([
    waits(undefined, 'ledger_calls c'),
    waits('c.tool', 'ledger_calls c'),
    waits('a.approver_canonical', CALL_JOIN),
  ]);
  const none: Waits = { p50: null, p95: null };
  const sinceIso = isoTime(q.sinceIso);
  const untilIso = isoTime(q.untilIso);
  return {
    ...(sinceIso ? { sinceIso } : {}),
    ...(untilIso ? { untilIso } : {}),
    ...groupOf(total, all.get('') ?? none),
    byTool: Object.fromEntries([...byTool.counts].map(([g, c]) => [g, groupOf(c, tools.get(g) ?? none)])),
    byApprover: Object.fromEntries(
      [...byWho.counts].map(([g, c]) => [byWho.names.get(g) ?? g, groupOf(c, who.get(g) ?? none)]),
    ),
  };
}

async function counts(db: Db, sql: string, params: unknown[]) {
  const out = new Map<string, Map<string, number>>();
  const names = new Map<string, string>();
  for (const r of await db.all(sql, params)) {
    const g = String(r.g);
    if (!out.has(g)) out.set(g, new Map());
    out.get(g)!.set(String(r.s), Number(r.n));
    // The spelling shown for a person: the least of those written (the same in every store).
    if (r.name !== undefined && (!names.has(g) || String(r.name) < names.get(g)!)) names.set(g, String(r.name));
  }
  return { counts: out, names };
}

function groupOf(outcomes: Map<string, number>, waits: Waits): ReportGroup {
  let total = 0;
  let approving = 0;
  for (const [s, n] of outcomes) {
    total += n;
    if (APPROVING.has(s)) approving += n;
  }
  const decided = total - (outcomes.get('pending') ?? 0);
  return {
    total,
    byOutcome: Object.fromEntries([...outcomes].sort(([a], [b]) => (a < b ? -1 : 1))),
    approvalRate: decided ? approving / decided : null,
    timeToDecisionMs: waits,
  };
}

/** p50 and p95 of wait_ms per group ('' for the whole set), percentile_cont's definition in both dialects. */
async function percentiles(
  db: Db,
  dialect: Dialect,
  group: string | undefined,
  from: string,
  where: { sql: string; params: unknown[] },
): Promise<Map<string, Waits>> {
  const g = group ?? `''`;
  const filter = `${where.sql} AND c.wait_ms IS NOT NULL`;
  const out = new Map<string, Waits>();
  if (dialect === 'postgres') {
    const rows = await db.all(
      `SELECT ${g} AS g, percentile_cont(0.5) WITHIN GROUP (ORDER BY c.wait_ms) AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY c.wait_ms) AS p95 FROM ${from} WHERE ${filter} GROUP BY 1`,
      where.params,
    );
    for (const r of rows) out.set(String(r.g), { p50: numberOrNull(r.p50), p95: numberOrNull(r.p95) });
    return out;
  }
  // The rows at floor((n-1)p) and the one after, per group: all percentile_cont needs.
  const at = (p: number) => `CAST((n - 1) * ${p} AS INTEGER)`;
  const rows = await db.all(
    `SELECT g, w, rn, n FROM (SELECT ${g} AS g, c.wait_ms AS w, ROW_NUMBER() OVER (PARTITION BY ${g} ORDER BY c.wait_ms) - 1 AS rn,
       COUNT(*) OVER (PARTITION BY ${g}) AS n FROM ${from} WHERE ${filter})
     WHERE rn IN (${at(0.5)}, ${at(0.5)} + 1, ${at(0.95)}, ${at(0.95)} + 1)`,
    where.params,
  );
  const picked = new Map<string, { n: number; w: Map<number, number> }>();
  for (const r of rows) {
    const key = String(r.g);
    if (!picked.has(key)) picked.set(key, { n: Number(r.n), w: new Map() });
    picked.get(key)!.w.set(Number(r.rn), Number(r.w));
  }
  for (const [key, { n, w }] of picked) out.set(key, { p50: interpolate(n, w, 0.5), p95: interpolate(n, w, 0.95) });
  return out;
}

/** percentile_cont: the value at (n-1)p, linear between its two neighbours. */
export function interpolate(n: number, sorted: Map<number, number>, p: number): number | null {
  if (!n) return null;
  const pos = (n - 1) * p;
  const lo = Math.floor(pos);
  const a = sorted.get(lo)!;
  const b = sorted.get(lo + 1);
  return b === undefined ? a : a + (b - a) * (pos - lo);
}

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
