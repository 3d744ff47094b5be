// One ledger write, inside the store's transaction, the same SQL for SQLite and PostgreSQL, in three steps: load
// what the store has for the write (which of its items it keeps already, the call rows they touch, the chain's end),
// fold (ledgerFold.ts, pure: each touched call's trail one step at a time, the new items chained), save (the call
// rows and their approvers, the new entries, the chain's end).
import type { LedgerWrite, LedgerWriteResult } from '../../contract/ledgerRecords';
import { canonicalApprover } from '../../contract/approverName';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import { type CallTrail, callRecord } from '../../core/approvals/callFold';
import {
  type CallRow,
  type ChainEnd,
  type FoldedWrite,
  type LedgerItem,
  type LoadedWrite,
  callKey,
  foldWrite,
  itemsOf,
} from './ledgerFold';
import { pack, unpack } from './ledgerCompact';
import type { Dialect, SchemaRunner } from './ledgerSchema';
import { CHAINS_OF_RUN, CHAIN_OF, chainIdsOf, chainText, withKeys } from './ledgerChainIds';

type Row = Record<string, unknown>;

const CHUNK = 400;
const chunks = <T>(xs: T[], n = CHUNK): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
const marks = (n: number, width: number) =>
  Array.from({ length: n }, () => `(${Array.from({ length: width }, () => '?').join(', ')})`).join(', ');

/**
 * Rows whose `columns` equal one of `n` tuples (bound in order): ORed equalities, which SQLite searches by index one
 * tuple at a time; a row value `IN (VALUES …)` of two or more tuples it reads by scanning the whole table or index.
 */
export const anyOf = (columns: string[], n: number): string =>
  `(${Array.from({ length: n }, () => `(${columns.map((c) => `${c} = ?`).join(' AND ')})`).join(' OR ')})`;

/** An ISO-8601 time in the one form the ledger compares as text (toISOString); anything else as written. */
export const isoTime = (s: string | undefined): string | undefined =>
  s === undefined || Number.isNaN(Date.parse(s)) ? s : new Date(s).toISOString();

/** Writes `w` into the ledger `ledgerId` (the result names it; the records' ledger_id NULL says it too). */
export async function appendWrite(
  db: SchemaRunner,
  dialect: Dialect,
  w: LedgerWrite,
  ledgerId: string,
): Promise<LedgerWriteResult> {
  const { loaded, skipped } = await loadWrite(db, dialect, w);
  await saveWrite(db, w, foldWrite(w, loaded));
  return { written: loaded.fresh.length, skipped, ledgerId };
}

/** Load: what the store has for `w`, locking the call rows it will rewrite (PostgreSQL: FOR UPDATE). */
async function loadWrite(
  db: SchemaRunner,
  dialect: Dialect,
  w: LedgerWrite,
): Promise<{ loaded: LoadedWrite; skipped: number }> {
  const items = itemsOf(w);
  const kept = await keptSeqs(db, w, items);
  const fresh = items.filter((i) => !kept.has(i.seq)).sort((a, b) => a.seq - b.seq);
  const { calls, waiting } = await loadCalls(db, dialect === 'postgres' ? ' FOR UPDATE OF c' : '', w, fresh);
  const end = fresh.length ? await chainEndOf(db, w) : { pos: 0, seq: null, hash: '' };
  return { loaded: { fresh, calls, waiting, end }, skipped: items.length - fresh.length };
}

async function keptSeqs(db: SchemaRunner, w: LedgerWrite, items: LedgerItem[]): Promise<Set<number>> {
  const kept = new Set<number>();
  for (const part of chunks(items.map((i) => i.seq))) {
    const rows = await db.all(
      `SELECT seq FROM ledger_entries WHERE chain = ${CHAIN_OF} AND seq IN (${part.map(() => '?').join(', ')})`,
      [w.workflowId, w.chainId, ...part],
    );
    for (const r of rows) kept.add(Number(r.seq));
  }
  return kept;
}

/** Every call row the write folds: the run's own (and placeholders holding early reviews), the reviewed ones. */
async function loadCalls(
  db: SchemaRunner,
  forUpdate: string,
  w: LedgerWrite,
  fresh: LedgerItem[],
): Promise<Pick<LoadedWrite, 'calls' | 'waiting'>> {
  const touched = new Map<string, CallRow>();
  const adopt = (r: Row) => {
    const row = callRowOf(r);
    touched.set(callKey(row.workflowId, row.chainId, row.callId), row);
  };
  const runCalls = new Set<string>(fresh.filter((i) => i.kind === 'entry').map((i) => i.record.callId));
  for (const p of w.pending ?? []) runCalls.add(p.callId);
  for (const part of chunks([...runCalls]))
    for (const r of await db.all(
      `SELECT h.workflow_id, h.chain_id, c.* FROM ${withKeys('ledger_calls', 'c')} WHERE h.workflow_id = ?
        AND h.chain_id IN (?, '') AND c.call_id IN (${part.map(() => '?').join(', ')})${forUpdate}`,
      [w.workflowId, w.chainId, ...part],
    ))
      adopt(r);
  const waiting: string[] = [];
  if (w.pending || w.closed)
    for (const r of await db.all(
      `SELECT h.workflow_id, h.chain_id, c.* FROM ${withKeys('ledger_calls', 'c')}
        WHERE h.workflow_id = ? AND h.chain_id = ? AND c.status = 'pending'${forUpdate}`,
      [w.workflowId, w.chainId],
    )) {
      if (!touched.has(callKey(String(r.workflow_id), w.chainId, String(r.call_id)))) adopt(r);
      waiting.push(String(r.call_id));
    }
  // A reviewed call by its run's chains and its id (anyOf's ORed terms: each an index search of the chain's calls).
  const reviewed = fresh.flatMap((i) => (i.kind === 'review' ? [i.record] : []));
  for (const part of chunks(reviewed, 200))
    for (const r of await db.all(
      `SELECT h.workflow_id, h.chain_id, c.* FROM ${withKeys('ledger_calls', 'c')}
        WHERE ${anyOf([`c.chain IN ${CHAINS_OF_RUN} AND c.call_id`], part.length)}${forUpdate}`,
      part.flatMap((r) => [r.workflowId, r.callId]),
    ))
      if (!touched.has(callKey(String(r.workflow_id), String(r.chain_id), String(r.call_id)))) adopt(r);
  return { calls: [...touched.values()], waiting };
}

/** A call row's trail column (packed JSON, ledgerCompact.ts), with the run's agent beside the trail. */
export const storedTrail = (r: Row) => JSON.parse(unpack(r.trail as Uint8Array)) as CallTrail & { runAgent: string };

/** A stored call row. */
function callRowOf(r: Row): CallRow {
  const { runAgent, ...trail } = storedTrail(r);
  const key = { workflowId: String(r.workflow_id), chainId: String(r.chain_id), callId: String(r.call_id) };
  return { ...key, taskQueue: String(r.task_queue), runAgent, trail };
}

async function chainEndOf(db: SchemaRunner, w: LedgerWrite): Promise<ChainEnd> {
  const [head] = await db.all(`SELECT * FROM ledger_chains WHERE workflow_id = ? AND chain_id = ?`, [
    w.workflowId,
    w.chainId,
  ]);
  const written = head?.last_seq !== null && head?.last_seq !== undefined; // a row with no head: no record yet
  return {
    pos: Number(head?.last_pos ?? head?.anchor_pos ?? 0),
    seq: written ? Number(head.last_seq) : null,
    hash: written ? String(head.last_hash) : '',
  };
}

/** Save: the call rows (and their approvers), the placeholders they absorbed, the new entries and the chain's end. */
async function saveWrite(db: SchemaRunner, w: LedgerWrite, folded: FoldedWrite): Promise<void> {
  const ids = await saveCalls(db, folded.calls);
  for (const part of chunks(folded.placeholders, 200))
    await db.run(
      `DELETE FROM ledger_calls WHERE ${anyOf([`chain = ${CHAIN_OF} AND call_id`], part.length)}`,
      part.flatMap((p) => [p.workflowId, '', p.callId]),
    );
  if (folded.entries.length) await saveEntries(db, w, folded, ids.get(chainText(w)));
}

async function saveEntries(
  db: SchemaRunner,
  w: LedgerWrite,
  { entries, end }: FoldedWrite,
  known: number | undefined, // the chain's id, when its calls were saved (a reviews chain's calls are other runs')
): Promise<void> {
  const writtenMs = Date.now();
  const chain = known ?? (await chainIdsOf(db, [w])).get(chainText(w))!;
  // The record's JSON alone, packed: the rest of the hashed body is the row's columns (ledgerVerification.ts's chainRow).
  // ledger_id stays NULL: the record is this ledger's (`ledgerId`, kept once in ledger_meta).
  const rows = entries.map(({ item, body, hash }) => [
    chain,
    item.seq,
    body.pos,
    body.prevSeq,
    hash,
    item.kind,
    item.record.callId,
    isoTime(item.kind === 'review' ? item.record.reviewedAt : item.record.decidedAt),
    w.agent,
    w.taskQueue,
    pack(JSON.stringify(body.record)),
    writtenMs,
  ]);
  for (const part of chunks(rows, 200))
    await db.run(
      `INSERT INTO ledger_entries (chain, seq, pos, prev_seq, hash, kind, call_id, at, agent, task_queue, body,
        written_ms) VALUES ${marks(part.length, 12)} ON CONFLICT DO NOTHING`,
      part.flat(),
    );
  await db.run(`UPDATE ledger_chains SET last_seq = ?, last_pos = ?, last_hash = ? WHERE id = ?`, [
    end.seq,
    end.pos,
    end.hash,
    chain,
  ]);
}

async function saveCalls(db: SchemaRunner, rows: CallRow[]): Promise<Map<string, number>> {
  const ids = await chainIdsOf(db, rows);
  for (const part of chunks(rows, 200)) {
    const values = part.map((t) =>
      callColumns(t, callRecord(t.trail, { workflowId: t.workflowId, agent: t.runAgent })),
    );
    const chain = (t: CallRow) => ids.get(chainText(t))!;
    await db.run(
      `INSERT INTO ledger_calls (chain, call_id, task_queue, agent, tool, status, approvers, requested_at, decided,
        event_at, wait_ms, verified, path, reviewed_at, note, trail) VALUES ${marks(part.length, 16)}
       ON CONFLICT (chain, call_id) DO UPDATE SET task_queue = excluded.task_queue,
        agent = excluded.agent, tool = excluded.tool, status = excluded.status, approvers = excluded.approvers,
        requested_at = excluded.requested_at, decided = excluded.decided, event_at = excluded.event_at,
        wait_ms = excluded.wait_ms, verified = excluded.verified, path = excluded.path,
        reviewed_at = excluded.reviewed_at, note = excluded.note, trail = excluded.trail`,
      values.flatMap((v, i) => storedCall(chain(part[i]!), v)),
    );
    await db.run(
      `DELETE FROM ledger_call_approvers WHERE ${anyOf(['chain', 'call_id'], part.length)}`,
      part.flatMap((t) => [chain(t), t.callId]),
    );
    const approvers = part.flatMap((t, i) =>
      (JSON.parse(String(values[i]![7])) as string[]).map((a) => [
        chain(t),
        t.callId,
        canonicalApprover(a),
        a === canonicalApprover(a) ? null : a, // NULL: spelled as its canonical name
        ...[10, 6, 5, 4, 3, 11].map((column) => values[i]![column]),
      ]),
    );
    for (const names of chunks(approvers))
      await db.run(
        `INSERT INTO ledger_call_approvers (chain, call_id, approver_canonical, approver, event_at, status, tool,
          agent, task_queue, wait_ms) VALUES ${marks(names.length, 10)} ON CONFLICT DO NOTHING`,
        names.flat(),
      );
  }
  return ids;
}

/**
 * callColumns as ledger_calls keeps them: the chain's id for its keys (schema 6), decided_at as `decided` (1: it is
 * event_at, 0: none), requested_at NULL when it is decided_at less wait_ms, the trail packed (schema 5).
 */
const storedCall = (chain: number, v: unknown[]): unknown[] => [
  chain,
  ...v.slice(2, 8),
  v[9] !== null && v[11] !== null ? null : v[8],
  v[9] === null ? 0 : 1,
  ...v.slice(10, -1),
  pack(String(v[v.length - 1])),
];

/** A stored call row with decided_at and requested_at as callColumns has them. */
export function callTimes(r: Row): Row {
  const decided = Number(r.decided) === 1;
  const derived = decided && r.wait_ms !== null && r.wait_ms !== undefined && r.requested_at === null;
  return {
    ...r,
    decided_at: decided ? r.event_at : null,
    requested_at: derived ? new Date(Date.parse(String(r.event_at)) - Number(r.wait_ms)).toISOString() : r.requested_at,
  };
}

/** A call row's columns as callTimes reads them, from its trail's record (ledgerRefold.ts checks them so too). */
export function callColumns(t: CallRow, r: ApprovalRecord | undefined): unknown[] {
  const requestedAt = isoTime(r?.requestedAt);
  const decidedAt = isoTime(r?.decidedAt);
  const wait = requestedAt && decidedAt ? Date.parse(decidedAt) - Date.parse(requestedAt) : NaN;
  return [
    t.workflowId,
    t.chainId,
    t.callId,
    t.taskQueue,
    r?.agent ?? t.runAgent,
    r?.toolName ?? t.trail.first?.toolName ?? '-',
    r?.status ?? null,
    JSON.stringify(r?.approvers ?? []),
    requestedAt ?? null,
    decidedAt ?? null,
    decidedAt ?? requestedAt ?? '',
    Number.isFinite(wait) ? wait : null,
    r?.verified === undefined ? null : r.verified ? 1 : 0,
    r?.path ?? null,
    r?.reviewedAt ?? null,
    r?.note ?? null,
    JSON.stringify({ ...t.trail, runAgent: t.runAgent }),
  ];
}
