// The compliance report, aggregated by the database: a month is one range of ledger_calls (kept in event_at order)
// and one range per person of ledger_call_approvers (kept in approver, event_at order). Counts are GROUP BY tool (or approver)
// and status; time to decision is percentile_cont (linear between the two nearest waits): PostgreSQL's own over
// GROUPING SETS, and in SQLite the same formula over the waits the same grouped scan hands back (group_concat), since
// SQLite's window functions cost several times that scan on a month of a million-record ledger.
import type { Dialect, SchemaRunner } from './ledgerSchema';
import type { ComplianceReport, LedgerQuery, ReportGroup } from './ledgerStore';
import { whereOf } from './ledgerReads';
import { isoTime } from './ledgerAppend';
import { approvesCall } from '../../contract/decisionWords';

type Db = Pick<SchemaRunner, 'all'>;
type Waits = { p50: number | null; p95: number | null };
const NONE: Waits = { p50: null, p95: null };

/** One grouping's figures: counts per group and status, waits per group ('' = all), the spelling shown per group. */
interface Grouped {
  counts: Map<string, Map<string, number>>;
  waits: Map<string, Waits>;
  names: Map<string, string>;
}

export async function reportOf(db: Db, dialect: Dialect, q: LedgerQuery): Promise<ComplianceReport> {
  const where = whereOf(q);
  const by = dialect === 'postgres' ? groupedPg : groupedSqlite;
  // The approvers table carries its call's report columns under the same names: the same WHERE fits it.
  // The approvers table is in one person's order: each person's range is read in turn (a loose scan of its key).
  const everyone = `WITH RECURSIVE who (a) AS (SELECT MIN(approver_canonical) FROM ledger_call_approvers
      UNION ALL SELECT (SELECT MIN(approver_canonical) FROM ledger_call_approvers WHERE approver_canonical > who.a)
      FROM who WHERE who.a IS NOT NULL) `;
  const [tools, who] = await Promise.all([
    by(db, { from: 'ledger_calls c' }, 'c.tool', where),
    by(
      db,
      { with: everyone, from: 'who JOIN ledger_call_approvers c ON c.approver_canonical = who.a' },
      'c.approver_canonical',
      where,
      'COALESCE(c.approver, c.approver_canonical)',
    ),
  ]);
  const total = new Map<string, number>();
  for (const outcomes of tools.counts.values()) for (const [s, n] of outcomes) total.set(s, (total.get(s) ?? 0) + n);
  const sinceIso = isoTime(q.sinceIso);
  const untilIso = isoTime(q.untilIso);
  return {
    ...(sinceIso ? { sinceIso } : {}),
    ...(untilIso ? { untilIso } : {}),
    ...groupOf(total, tools.waits.get('') ?? NONE),
    byTool: Object.fromEntries([...tools.counts].map(([g, c]) => [g, groupOf(c, tools.waits.get(g) ?? NONE)])),
    byApprover: Object.fromEntries(
      [...who.counts].map(([g, c]) => [who.names.get(g) ?? g, groupOf(c, who.waits.get(g) ?? NONE)]),
    ),
  };
}

function collect(rows: Array<Record<string, unknown>>, out: Grouped): void {
  for (const r of rows) {
    const g = String(r.g);
    if (!out.counts.has(g)) out.counts.set(g, new Map());
    out.counts.get(g)!.set(String(r.s), Number(r.n));
    // The spelling shown for a person: the least of those written (the same in every store).
    if (r.name != null && (!out.names.has(g) || String(r.name) < out.names.get(g)!)) out.names.set(g, String(r.name));
  }
}

/** What a grouping reads: `from` (its rows as `c`), after a `with` clause when it has one. */
type Source = { with?: string; from: string };

async function groupedPg(db: Db, src: Source, group: string, where: Where, name?: string): Promise<Grouped> {
  const out: Grouped = { counts: new Map(), waits: new Map(), names: new Map() };
  const [counted, waited] = await Promise.all([
    db.all(
      `${src.with ?? ''}SELECT ${group} AS g, c.status AS s, COUNT(*) AS n${name ? `, MIN(${name}) AS name` : ''} FROM ${src.from}
       WHERE ${where.sql} GROUP BY ${group}, c.status`,
      where.params,
    ),
    db.all(
      `${src.with ?? ''}SELECT ${group} AS g, GROUPING(${group}) AS whole,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY c.wait_ms) AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY c.wait_ms) AS p95 FROM ${src.from}
       WHERE ${where.sql} AND c.wait_ms IS NOT NULL GROUP BY GROUPING SETS ((${group}), ())`,
      where.params,
    ),
  ]);
  collect(counted, out);
  for (const r of waited)
    out.waits.set(Number(r.whole) === 1 ? '' : String(r.g), { p50: numberOrNull(r.p50), p95: numberOrNull(r.p95) });
  return out;
}

async function groupedSqlite(db: Db, src: Source, group: string, where: Where, name?: string): Promise<Grouped> {
  const out: Grouped = { counts: new Map(), waits: new Map(), names: new Map() };
  const rows = await db.all(
    `${src.with ?? ''}SELECT ${group} AS g, c.status AS s, COUNT(*) AS n, group_concat(c.wait_ms) AS w${name ? `, MIN(${name}) AS name` : ''}
     FROM ${src.from} WHERE ${where.sql} GROUP BY ${group}, c.status`,
    where.params,
  );
  collect(rows, out);
  const waits = new Map<string, number[]>();
  const all: number[] = [];
  for (const r of rows) {
    if (r.w == null || r.w === '') continue;
    const ws = String(r.w).split(',').map(Number);
    const g = String(r.g);
    const mine = waits.get(g) ?? [];
    waits.set(g, mine);
    for (const w of ws) {
      mine.push(w);
      all.push(w);
    }
  }
  for (const [g, ws] of waits) out.waits.set(g, percentilesOf(ws));
  // Everyone's waits: for the approvers' grouping a call counts once per person; the total comes from the tools'.
  out.waits.set('', percentilesOf(all));
  return out;
}

type Where = { sql: string; params: unknown[] };

/** p50 and p95 as percentile_cont computes them. */
export function percentilesOf(values: number[]): Waits {
  if (!values.length) return NONE;
  const sorted = Float64Array.from(values).sort();
  return { p50: interpolate(sorted, 0.5), p95: interpolate(sorted, 0.95) };
}

/** percentile_cont: the value at (n-1)p, linear between its two neighbours. */
function interpolate(sorted: Float64Array, p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const a = sorted[lo]!;
  return lo + 1 < sorted.length ? a + (sorted[lo + 1]! - a) * (pos - lo) : a;
}

function groupOf(outcomes: Map<string, number>, waits: Waits): ReportGroup {
  let total = 0;
  let approving = 0;
  for (const [s, n] of outcomes) {
    total += n;
    if (approvesCall(s)) approving += n; // it ran on a person's, a rule's, a grant's or its timeout's word
  }
  const decided = total - (outcomes.get('pending') ?? 0);
  return {
    total,
    byOutcome: Object.fromEntries([...outcomes].sort(([a], [b]) => (a < b ? -1 : 1))),
    approvalRate: decided ? approving / decided : null,
    timeToDecisionMs: waits,
  };
}

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
