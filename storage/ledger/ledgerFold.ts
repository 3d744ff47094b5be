// The middle step of a ledger write (ledgerAppend.ts loads, this folds, ledgerAppend.ts saves), pure: from what the
// store has (the call rows the write touches, the chain's end) and the write's new items, the call rows to rewrite,
// the placeholders they absorb, and the new items chained (pos, prev_seq, hash) after the chain's end. Each call's
// trail goes one step at a time through core/approvals/callFold.ts, the rule approvalRecords uses.
import type { LedgerEntry, LedgerReview, LedgerWrite } from '../../contract/ledgerRecords';
import { type CallStep, type CallTrail, foldCall } from '../../core/approvals/callFold';
import { type ChainBody, chainHash } from './ledgerChain';

/** One record a write adds to its chain. */
export type LedgerItem =
  { kind: 'entry'; seq: number; record: LedgerEntry } | { kind: 'review'; seq: number; record: LedgerReview };

/** A call's row as the write folds it; chainId '' holds reviews that arrived before their call's entries. */
export interface CallRow {
  workflowId: string;
  chainId: string;
  callId: string;
  taskQueue: string;
  runAgent: string;
  trail: CallTrail;
}

/** Where a chain ends: its last record's position, seq and hash (0, null and '' for an empty chain). */
export interface ChainEnd {
  pos: number;
  seq: number | null;
  hash: string;
}

/** What the store has for a write (ledgerAppend.ts's load). */
export interface LoadedWrite {
  /** The write's items the store does not keep yet, oldest first. */
  fresh: LedgerItem[];
  /** Every stored call row the write folds (the run's own, placeholders of early reviews, the reviewed calls). */
  calls: CallRow[];
  /** The calls the store shows pending in this chain (read when the write has `pending` or `closed`). */
  waiting: string[];
  /** Read when there are fresh items. */
  end: ChainEnd;
}

/** A fresh item with its place in the chain. */
export interface ChainedItem {
  item: LedgerItem;
  body: ChainBody;
  hash: string;
}

/** What a write saves. */
export interface FoldedWrite {
  /** The call rows to write (insert or replace). */
  calls: CallRow[];
  /** Placeholder rows (chain '') whose reviews moved into their call's row: to delete. */
  placeholders: CallRow[];
  entries: ChainedItem[];
  /** The chain's new end (the same when there are no entries). */
  end: ChainEnd;
}

export const callKey = (wf: string, chain: string, call: string) => `${wf}\u0000${chain}\u0000${call}`;

/** The write's entries and reviews by seq, the first of a repeated seq winning. */
export function itemsOf(w: LedgerWrite): LedgerItem[] {
  const bySeq = new Map<number, LedgerItem>();
  for (const e of w.entries ?? []) if (!bySeq.has(e.seq)) bySeq.set(e.seq, { kind: 'entry', seq: e.seq, record: e });
  for (const r of w.reviews ?? []) if (!bySeq.has(r.seq)) bySeq.set(r.seq, { kind: 'review', seq: r.seq, record: r });
  return [...bySeq.values()];
}

/** Folds a write into what the store has (`loaded` is left as it was). */
export function foldWrite(w: LedgerWrite, loaded: LoadedWrite): FoldedWrite {
  const touched = new Map(loaded.calls.map((c) => [callKey(c.workflowId, c.chainId, c.callId), { ...c }]));
  const placeholders: CallRow[] = [];
  const waiting = loaded.waiting.map((callId) => touched.get(callKey(w.workflowId, w.chainId, callId))!);
  const own = (callId: string): CallRow => ownRow(w, touched, placeholders, callId);
  const fold = (row: CallRow, step: CallStep) => (row.trail = foldCall(row.trail, row.callId, step));

  for (const item of loaded.fresh) {
    if (item.kind === 'entry') fold(own(item.record.callId), { entry: item.record });
    else {
      const rows = [...touched.values()].filter(
        (t) => t.workflowId === item.record.workflowId && t.callId === item.record.callId && !placeholders.includes(t),
      );
      if (!rows.length) {
        const row = { workflowId: item.record.workflowId, chainId: '', callId: item.record.callId };
        const early: CallRow = { ...row, taskQueue: '', runAgent: '-', trail: { callId: row.callId, counted: [] } };
        touched.set(callKey(row.workflowId, '', row.callId), early);
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

  const calls = [...touched.values()].filter((t) => !placeholders.includes(t));
  return { calls, placeholders, ...chained(w, loaded.fresh, loaded.end) };
}

/** The run's row for a call: the stored one, else a new one taking over the placeholder of its early reviews. */
function ownRow(w: LedgerWrite, touched: Map<string, CallRow>, placeholders: CallRow[], callId: string): CallRow {
  const k = callKey(w.workflowId, w.chainId, callId);
  let row = touched.get(k);
  if (!row) {
    const early = touched.get(callKey(w.workflowId, '', callId));
    if (early) placeholders.push(early);
    const trail = early?.trail ?? { callId, counted: [] };
    row = { workflowId: w.workflowId, chainId: w.chainId, callId, taskQueue: w.taskQueue, runAgent: w.agent, trail };
    touched.set(k, row);
  }
  return row;
}

/** The fresh items appended after `end`, each hashing the one before. */
function chained(w: LedgerWrite, fresh: LedgerItem[], end: ChainEnd): { entries: ChainedItem[]; end: ChainEnd } {
  let { pos, seq: prevSeq, hash: prevHash } = end;
  const entries = fresh.map((item) => {
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
    prevSeq = item.seq;
    prevHash = hash;
    return { item, body, hash };
  });
  return { entries, end: { pos, seq: prevSeq, hash: prevHash } };
}
