// One ledger write, inside the store's transaction, the same SQL for SQLite and PostgreSQL: skip the entries already
// kept, append the new ones to their chain (pos, prev_seq, hash), fold each touched call's trail one step at a time
// (core/approvals/callFold.ts, the rule approvalRecords uses) and rewrite its row and approvers, move the chain's head.
import type { LedgerEntry, LedgerReview, LedgerWrite, LedgerWriteResult } from '../../contract/ledgerRecords';
import { canonicalApprover } from '../../contract/approverName';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import { type CallStep, type CallTrail, callRecord, foldCall } from '../../core/approvals/callFold';
import { type ChainBody, chainHash } from './ledgerChain';
import type { Dialect, SchemaRunner } from './ledgerSchema';

type Item = { kind: 'entry'; seq: number; record: LedgerEntry } | { kind: 'review'; seq: number; record: LedgerReview };
/** A call's row while the write folds it; chainId '' holds reviews that arrived before their call's entries. */
interface Touched {
  workflowId: string;
  chainId: string;
  callId: string;
  taskQueue: string;
  runAgent: string;
  trail: CallTrail;
}
type Row = Record<string, unknown>;

const CHUNK = 400;
const chunks = <T>(xs: T[], n = CHUNK): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
const marks = (n: number, width: number) =>
  Array.from({ length: n }, () => `(${Array.from({ length: width }, () => '?').join(', ')})`).join(', ');
const keyOf = (wf: string, chain: string, call: string) => `${wf}\u0000${chain}\u0000${call}`;

/** An ISO-8601 time in the one form the ledger compares as text (toISOString); anything else as written. */
export const isoTime = (s: string | undefined): string | undefined =>
  s === undefined || Number.isNaN(Date.parse(s)) ? s : new Date(s).toISOString();

export async function appendWrite(db: SchemaRunner, dialect: Dialect, w: LedgerWrite): Promise<LedgerWriteResult> {
  const forUpdate = dialect === 'postgres' ? ' FOR UPDATE' : '';
  const bySeq = new Map<number, Item>();
  for (const e of w.entries ?? []) if (!bySeq.has(e.seq)) bySeq.set(e.seq, { kind: 'entry', seq: e.seq, record: e });
  for (const r of w.reviews ?? []) if (!bySeq.has(r.seq)) bySeq.set(r.seq, { kind: 'review', seq: r.seq, record: r });
  const kept = new Set<number>();
  for (const part of chunks([...bySeq.keys()])) {
    const rows = await db.all(
      `SELECT seq FROM ledger_entries WHERE workflow_id = ? AND chain_id = ? AND seq IN (${part.map(() => '?').join(', ')})`,
      [w.workflowId, w.chainId, ...part],
    );
    for (const r of rows) kept.add(Number(r.seq));
  }
  const fresh = [...bySeq.values()].filter((i) => !kept.has(i.seq)).sort((a, b) => a.seq - b.seq);
  const skipped = bySeq.size - fresh.length;

  // Load every call row this write folds: the run's own (and placeholders holding early reviews), the reviewed ones.
  const touched = new Map<string, Touched>();
  const placeholders: Touched[] = [];
  const adopt = (r: Row) => {
    const { runAgent, ...trail } = JSON.parse(String(r.trail)) as CallTrail & { runAgent: string };
    const t = { workflowId: String(r.workflow_id), chainId: String(r.chain_id), callId: String(r.call_id) };
    const row: Touched = { ...t, taskQueue: String(r.task_queue), runAgent, trail };
    touched.set(keyOf(t.workflowId, t.chainId, t.callId), row);
    return row;
  };
  const runCalls = new Set<string>(fresh.filter((i) => i.kind === 'entry').map((i) => i.record.callId));
  for (const p of w.pending ?? []) runCalls.add(p.callId);
  for (const part of chunks([...runCalls]))
    for (const r of await db.all(
      `SELECT * FROM ledger_calls WHERE workflow_id = ? AND chain_id IN (?, '') AND call_id IN (${part.map(() => '?').join(', ')})${forUpdate}`,
      [w.workflowId, w.chainId, ...part],
    ))
      adopt(r);
  const waiting =
    w.pending || w.closed
      ? (
          await db.all(
            `SELECT * FROM ledger_calls WHERE workflow_id = ? AND chain_id = ? AND status = 'pending'${forUpdate}`,
            [w.workflowId, w.chainId],
          )
        ).map((r) => touched.get(keyOf(String(r.workflow_id), w.chainId, String(r.call_id))) ?? adopt(r))
      : [];
  const reviewed = fresh.filter((i) => i.kind === 'review').map((i) => i.record);
  for (const part of chunks(reviewed, 200))
    for (const r of await db.all(
      `SELECT * FROM ledger_calls WHERE (workflow_id, call_id) IN (VALUES ${marks(part.length, 2)})${forUpdate}`,
      part.flatMap((r) => [r.workflowId, r.callId]),
    ))
      if (!touched.has(keyOf(String(r.workflow_id), String(r.chain_id), String(r.call_id)))) adopt(r);

  const own = (callId: string): Touched => {
    const k = keyOf(w.workflowId, w.chainId, callId);
    let row = touched.get(k);
    if (!row) {
      const early = touched.get(keyOf(w.workflowId, '', callId));
      if (early) placeholders.push(early);
      const trail = early?.trail ?? { callId, counted: [] };
      row = { workflowId: w.workflowId, chainId: w.chainId, callId, taskQueue: w.taskQueue, runAgent: w.agent, trail };
      touched.set(k, row);
    }
    return row;
  };
  const fold = (row: Touched, step: CallStep) => (row.trail = foldCall(row.trail, row.callId, step));

  for (const item of fresh) {
    if (item.kind === 'entry') fold(own(item.record.callId), { entry: item.record });
    else {
      const rows = [...touched.values()].filter(
        (t) => t.workflowId === item.record.workflowId && t.callId === item.record.callId && !placeholders.includes(t),
      );
      if (!rows.length) {
        const row = { workflowId: item.record.workflowId, chainId: '', callId: item.record.callId };
        const early: Touched = { ...row, taskQueue: '', runAgent: '-', trail: { callId: row.callId, counted: [] } };
        touched.set(keyOf(row.workflowId, '', row.callId), early);
        rows.push(early);
      }
      for (const row of rows) fold(row, { review: item.record });
    }
  }
  if (w.pending) {
    const now = new Set(w.pending.map((p) => p.callId));
    for (const row of waiting) if (!now.has(row.callId)) fold(row, { pending: undefined });
    for (const p of w.pending) fold(own(p.callId), { pending: p });
  }
  if (w.closed)
    for (const row of touched.values())
      if (row.workflowId === w.workflowId && row.chainId === w.chainId) fold(row, { closed: true });

  await saveCalls(
    db,
    [...touched.values()].filter((t) => !placeholders.includes(t)),
  );
  for (const part of chunks(placeholders, 200))
    await db.run(
      `DELETE FROM ledger_calls WHERE chain_id = '' AND (workflow_id, call_id) IN (VALUES ${marks(part.length, 2)})`,
      part.flatMap((p) => [p.workflowId, p.callId]),
    );
  if (fresh.length) await appendEntries(db, w, fresh);
  return { written: fresh.length, skipped };
}

async function appendEntries(db: SchemaRunner, w: LedgerWrite, fresh: Item[]): Promise<void> {
  const [head] = await db.all(`SELECT * FROM ledger_chains WHERE workflow_id = ? AND chain_id = ?`, [
    w.workflowId,
    w.chainId,
  ]);
  let pos = Number(head?.last_pos ?? head?.anchor_pos ?? 0);
  let prevSeq: number | null = head ? Number(head.last_seq) : null;
  let prevHash = head ? String(head.last_hash) : '';
  const writtenAt = new Date().toISOString();
  const rows = fresh.map((item) => {
    const body: ChainBody = {
      workflowId: w.workflowId,
      chainId: w.chainId,
      seq: item.seq,
      pos: ++pos,
      prevSeq,
      kind: item.kind,
      record: item.record,
    };
    const hash = chainHash(prevHash, body);
    const row = [
      w.workflowId,
      w.chainId,
      item.seq,
      pos,
      prevSeq,
      hash,
      item.kind,
      ...columnsOf(item),
      w.agent,
      w.taskQueue,
      JSON.stringify(body),
      writtenAt,
    ];
    prevSeq = item.seq;
    prevHash = hash;
    return row;
  });
  for (const part of chunks(rows, 200))
    await db.run(
      `INSERT INTO ledger_entries (workflow_id, chain_id, seq, pos, prev_seq, hash, kind, call_id, decision, approver,
        approver_canonical, via, verified, key_id, reason, arguments_digest, at, agent, task_queue, body, written_at)
       VALUES ${marks(part.length, 21)} ON CONFLICT DO NOTHING`,
      part.flat(),
    );
  await db.run(
    `INSERT INTO ledger_chains (workflow_id, chain_id, task_queue, last_seq, last_pos, last_hash) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (workflow_id, chain_id) DO UPDATE SET last_seq = excluded.last_seq, last_pos = excluded.last_pos,
       last_hash = excluded.last_hash`,
    [w.workflowId, w.chainId, w.taskQueue, prevSeq, pos, prevHash],
  );
}

/** call_id, decision, approver, approver_canonical, via, verified, key_id, reason, arguments_digest, at. */
function columnsOf(item: Item): unknown[] {
  if (item.kind === 'review') {
    const r = item.record;
    return [
      r.callId,
      r.verdict,
      r.reviewer,
      canonicalApprover(r.reviewer),
      'review',
      null,
      null,
      r.note ?? null,
      null,
      isoTime(r.reviewedAt),
    ];
  }
  const e = item.record;
  return [
    e.callId,
    e.decision,
    e.approver ?? null,
    e.approver === undefined ? null : canonicalApprover(e.approver),
    e.via ?? null,
    e.verified ? 1 : null,
    e.keyId ?? null,
    e.reason ?? null,
    e.argumentsDigest ?? null,
    isoTime(e.decidedAt),
  ];
}

async function saveCalls(db: SchemaRunner, rows: Touched[]): Promise<void> {
  for (const part of chunks(rows, 200)) {
    const values = part.map((t) =>
      callColumns(t, callRecord(t.trail, { workflowId: t.workflowId, agent: t.runAgent })),
    );
    await db.run(
      `INSERT INTO ledger_calls (workflow_id, chain_id, call_id, task_queue, agent, tool, status, approvers, requested_at,
        decided_at, event_at, wait_ms, verified, path, reviewed_at, note, trail) VALUES ${marks(part.length, 17)}
       ON CONFLICT (workflow_id, chain_id, call_id) DO UPDATE SET task_queue = excluded.task_queue,
        agent = excluded.agent, tool = excluded.tool, status = excluded.status, approvers = excluded.approvers,
        requested_at = excluded.requested_at, decided_at = excluded.decided_at, event_at = excluded.event_at,
        wait_ms = excluded.wait_ms, verified = excluded.verified, path = excluded.path,
        reviewed_at = excluded.reviewed_at, note = excluded.note, trail = excluded.trail`,
      values.flat(),
    );
    await db.run(
      `DELETE FROM ledger_call_approvers WHERE (workflow_id, chain_id, call_id) IN (VALUES ${marks(part.length, 3)})`,
      part.flatMap((t) => [t.workflowId, t.chainId, t.callId]),
    );
    const approvers = part.flatMap((t, i) =>
      (JSON.parse(String(values[i]![7])) as string[]).map((a) => [
        t.workflowId,
        t.chainId,
        t.callId,
        canonicalApprover(a),
        a,
        ...[10, 6, 5, 4, 3, 11].map((column) => values[i]![column]),
      ]),
    );
    for (const names of chunks(approvers))
      await db.run(
        `INSERT INTO ledger_call_approvers (workflow_id, chain_id, call_id, approver_canonical, approver,
          event_at, status, tool, agent, task_queue, wait_ms) VALUES ${marks(names.length, 11)} ON CONFLICT DO NOTHING`,
        names.flat(),
      );
  }
}

function callColumns(t: Touched, r: ApprovalRecord | undefined): unknown[] {
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
