// What `ledger verify` checks of the report tables: the readers (approvals, the report, the inbox's history) read
// ledger_calls and ledger_call_approvers, which the chains' hashes do not cover. So each call's row is folded again
// from its chain's verified entries and the reviews of it (callFold.ts, the rule the write used), and every column a
// reader shows is compared with the stored one. Only the pending list and the run's close are not chained: a call
// with no decision in its chain is taken as waiting or cut off as its stored trail says. Pure.
import { canonicalApprover } from '../../contract/approverName';
import type { LedgerReview } from '../../contract/ledgerRecords';
import { type CallTrail, type FoldEntry, callRecord, foldCall } from '../../core/approvals/callFold';
import { callColumns, storedTrail, callTimes } from './ledgerAppend';
import type { ChainBody } from './ledgerChain';
import type { LedgerProblem } from './ledgerStore';

type Row = Record<string, unknown>;

/** ledger_calls' columns from agent on, in callColumns' order (0-2 are the key, 3 the task queue). */
const CALL_COLUMNS = [
  'agent',
  'tool',
  'status',
  'approvers',
  'requested_at',
  'decided_at',
  'event_at',
  'wait_ms',
  'verified',
  'path',
  'reviewed_at',
  'note',
] as const;
/** ledger_call_approvers' copied columns and where callColumns has them. */
const APPROVER_COLUMNS: Array<[string, number]> = [
  ['event_at', 10],
  ['status', 6],
  ['tool', 5],
  ['agent', 4],
  ['task_queue', 3],
  ['wait_ms', 11],
];

/** Numbers come back as strings from PostgreSQL's BIGINT: compared as text, null as null. */
const same = (a: unknown, b: unknown) =>
  (a === null || a === undefined) === (b === null || b === undefined) &&
  (a === null || a === undefined || String(a) === String(b));
const shown = (v: unknown) => (v === null || v === undefined ? 'empty' : JSON.stringify(String(v)));

/** An approvers row with its name as written (NULL: spelled as its canonical name). */
const spelled = (a: Row): Row => ({ ...a, approver: a.approver ?? a.approver_canonical });

/** A chain's kept records, parsed, in chain order. */
export interface ChainRecord {
  seq: number;
  body: ChainBody;
  /** Its chain's check named it changed: its call is not folded again (one line says what is wrong). */
  changed?: boolean;
  /** The task queue its write named (a checkpoint's leaf covers it; the chain's hash does not). */
  taskQueue?: string | null;
}

/** The newest review of each (workflow id, call id), from reviews read in the order they were written. */
export function newestReviews(reviews: LedgerReview[]): Map<string, LedgerReview> {
  return new Map(reviews.map((r) => [`${r.workflowId}\u0000${r.callId}`, r]));
}

/**
 * One chain's call rows (and their approvers) against its records folded again: a line for each column that
 * differs, a row the chain has no call for, and an approver row too many or missing.
 */
export function refoldChain(
  key: { workflowId: string; chainId: string },
  /** The chain's records, those its own check found changed left out (their calls are not compared again). */
  records: ChainRecord[],
  reviews: Map<string, LedgerReview>,
  calls: Row[],
  approvers: Row[],
): LedgerProblem[] {
  const problems: LedgerProblem[] = [];
  const trails = new Map<string, { trail: CallTrail; seq: number; taskQueue?: string | null }>();
  const unsure = new Set<string>();
  for (const { seq, body, changed, taskQueue } of records) {
    if (changed) unsure.add(String((body.record as { callId?: unknown } | undefined)?.callId));
    if (body.kind !== 'entry') continue;
    const e = body.record as FoldEntry;
    const had = trails.get(e.callId);
    trails.set(e.callId, { trail: foldCall(had?.trail, e.callId, { entry: e }), seq, taskQueue });
  }
  const named = new Map<string, Row[]>();
  for (const a of approvers) {
    const had = named.get(String(a.call_id));
    if (had) had.push(a);
    else named.set(String(a.call_id), [a]);
  }
  for (const row of calls.map(callTimes)) {
    const callId = String(row.call_id);
    if (unsure.has(callId)) {
      trails.delete(callId);
      continue;
    }
    const stored = storedTrail(row);
    const folded = trails.get(callId);
    // Not chained: whether the call waits now (the run's pending list) and whether its run ended while it waited.
    let trail: CallTrail = { callId, counted: [], ...folded?.trail };
    if (stored.pending) trail = foldCall(trail, callId, { pending: stored.pending });
    if (stored.cutOff) trail = foldCall(trail, callId, { closed: true });
    const review = reviews.get(`${key.workflowId}\u0000${callId}`);
    // The reviews workflow's chain reviews calls of other runs (a placeholder row holds those that came early).
    if (review) trail = foldCall(trail, callId, { review });
    const record = callRecord(trail, { workflowId: key.workflowId, agent: stored.runAgent });
    const want = callColumns(
      // A call's queue is its newest record's (a waiting call's, as stored).
      { ...key, callId, taskQueue: folded?.taskQueue ?? String(row.task_queue), runAgent: stored.runAgent, trail },
      record,
    );
    const seq = folded?.seq ?? 0;
    const differs = (detail: string) => problems.push({ ...key, seq, callId, problem: 'changed', detail });
    if (!folded && row.status !== null && row.status !== 'pending' && row.status !== 'cancelled') {
      differs(`the report tables show it ${String(row.status)}, but its chain has no record of it`);
      continue;
    }
    if (!same(row.task_queue, want[3]))
      differs(`ledger_calls.task_queue is ${shown(row.task_queue)}, its records say ${shown(want[3])}`);
    CALL_COLUMNS.forEach((column, i) => {
      if (!same(row[column], want[i + 4]))
        differs(`ledger_calls.${column} is ${shown(row[column])}, its chain says ${shown(want[i + 4])}`);
    });
    const wanted = new Map(
      (record?.approvers ?? []).map((name) => [canonicalApprover(name), name] as const).filter(([c]) => c),
    );
    for (const a of (named.get(callId) ?? []).map(spelled)) {
      const canonical = String(a.approver_canonical);
      const name = wanted.get(canonical);
      if (name === undefined) {
        differs(`ledger_call_approvers names ${shown(a.approver)}, who is not among its chain's approvers`);
        continue;
      }
      wanted.delete(canonical);
      for (const [column, at] of [['approver', -1] as [string, number], ...APPROVER_COLUMNS]) {
        const value = at < 0 ? name : want[at];
        if (!same(a[column], value))
          differs(`ledger_call_approvers.${column} for ${name} is ${shown(a[column])}, its chain says ${shown(value)}`);
      }
    }
    for (const name of wanted.values())
      differs(`ledger_call_approvers is missing ${JSON.stringify(name)}, one of its chain's approvers`);
    trails.delete(callId);
  }
  // A decided call whose row is gone no longer shows in any listing or report.
  for (const [callId, { trail, seq }] of trails)
    if (trail.terminal || trail.reviewable)
      problems.push({ ...key, seq, callId, problem: 'removed', detail: `its row in ledger_calls is missing` });
  return problems;
}
