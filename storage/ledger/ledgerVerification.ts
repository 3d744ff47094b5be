// `verify` over SQL, for both stores: every chain with a record in range is recomputed from its first kept record
// (ledgerChain.ts), and the call rows the readers read are folded again from it and compared (ledgerRefold.ts). A few
// hundred chains a round trip, so a million-record ledger is read in bounded pieces, never whole. The rows name their
// chain by ledger_chains' id (schema 6); a chain is shown and sorted by its keys.
import type { LedgerReview } from '../../contract/ledgerRecords';
import { isoTime } from './ledgerAppend';
import { unpack } from './ledgerCompact';
import { type ChainBody, type ChainRow, verifyChain } from './ledgerChain';
import { newestReviews, refoldChain } from './ledgerRefold';
import type { SchemaRunner } from './ledgerSchema';
import type { LedgerProblem, VerifyResult } from './ledgerStore';

type Row = Record<string, unknown>;
type Key = { workflowId: string; chainId: string };

/** A record's columns as chainRow reads them, from `ledger_entries e` joined to its chain's keys as `h`. */
export const ROW_COLUMNS =
  'h.workflow_id, h.chain_id, e.seq, e.pos, e.prev_seq, e.hash, e.body, e.call_id, e.kind, e.at';

/**
 * A kept row as the chain checks it. The row keeps its record's JSON alone (packed); the body its hash covers is put back
 * together from the row's columns (a changed column then no longer gives the hash). A body that is not a record's
 * JSON (a row kept whole at the upgrade to schema 4, its envelope changed) goes in as it was, and fails the same way.
 */
export const chainRow = (r: Row) => {
  const seq = Number(r.seq);
  const pos = Number(r.pos);
  const prevSeq = r.prev_seq === null ? null : Number(r.prev_seq);
  const kind = String(r.kind);
  let record: unknown;
  try {
    record = JSON.parse(unpack(r.body as Uint8Array));
  } catch {
    record = undefined;
  }
  const body: ChainBody = {
    workflowId: String(r.workflow_id),
    chainId: String(r.chain_id),
    seq,
    pos,
    prevSeq,
    kind,
    record,
  } as ChainBody;
  return {
    seq,
    pos,
    prevSeq,
    hash: String(r.hash),
    body: record === undefined ? '' : JSON.stringify(body),
    callId: String(r.call_id),
    kind,
    at: String(r.at),
  } satisfies ChainRow & { kind: string; at: string };
};

const BATCH = 200;
const IDS = 400;
const keyOf = (r: Row): Key => ({ workflowId: String(r.workflow_id), chainId: String(r.chain_id) });
const textOf = (k: Key) => `${k.workflowId}\n${k.chainId}`;
type Chain = { id: number; key: Key };

/** Recomputes every chain with a record in range (and every chain or call row that has none), naming what differs. */
export async function verifyOf(
  db: Pick<SchemaRunner, 'all'>,
  q: { sinceIso?: string; untilIso?: string },
): Promise<VerifyResult> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const [bound, op] of [
    [q.sinceIso, '>='],
    [q.untilIso, '<'],
  ] as const)
    if (bound) {
      clauses.push(`e.at ${op} ?`);
      params.push(isoTime(bound));
    }
  const inRange = clauses.length
    ? `SELECT DISTINCT h.id, h.workflow_id, h.chain_id FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain
       WHERE ${clauses.join(' AND ')}`
    : // Every chain with a head, a record or a call row (a row made up by hand has no record behind it).
      `SELECT id, workflow_id, chain_id FROM ledger_chains h WHERE h.last_seq IS NOT NULL
       OR EXISTS (SELECT 1 FROM ledger_entries e WHERE e.chain = h.id) OR EXISTS (SELECT 1 FROM ledger_calls c WHERE c.chain = h.id)`;
  const chains = new Map<number, Chain>();
  const note = (r: Row) => chains.set(Number(r.id), { id: Number(r.id), key: keyOf(r) });
  for (const r of await db.all(inRange, params)) note(r);
  // A chain whose every record is gone (and not pruned) has nothing in any range: look for it always.
  for (const r of await db.all(
    `SELECT h.id, h.workflow_id, h.chain_id FROM ledger_chains h WHERE h.last_seq IS NOT NULL
     AND (h.anchor_seq IS NULL OR h.last_seq <> h.anchor_seq) AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.chain = h.id)`,
  ))
    note(r);
  const problems: LedgerProblem[] = [];
  let records = 0;
  const all = [...chains.values()].sort((a, b) => (textOf(a.key) < textOf(b.key) ? -1 : 1));
  for (let i = 0; i < all.length; i += BATCH) {
    const part = all.slice(i, i + BATCH);
    const checked = await verifyBatch(db, part);
    records += checked.records;
    problems.push(...checked.problems);
  }
  return { chains: chains.size, records, problems };
}

async function verifyBatch(db: Pick<SchemaRunner, 'all'>, part: Chain[]) {
  const among = `IN (${part.map(() => '?').join(', ')})`;
  const params = part.map((c) => c.id);
  const grouped = async (sql: string, id = 'chain') => {
    const by = new Map<number, Row[]>();
    for (const r of await db.all(sql, params)) {
      const k = Number(r[id]);
      const had = by.get(k);
      if (had) had.push(r);
      else by.set(k, [r]);
    }
    return by;
  };
  const rows = await grouped(
    `SELECT e.chain, ${ROW_COLUMNS}, e.task_queue FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain
     WHERE e.chain ${among}`,
  );
  const heads = await grouped(`SELECT * FROM ledger_chains WHERE id ${among} AND last_seq IS NOT NULL`, 'id');
  const calls = await grouped(`SELECT * FROM ledger_calls WHERE chain ${among}`);
  const approvers = await grouped(`SELECT * FROM ledger_call_approvers WHERE chain ${among}`);
  const keyOfChain = new Map(part.map((c) => [c.id, c.key]));
  const reviews = await reviewsOf(
    db,
    [...calls.values()].flat().map((c) => ({ workflowId: keyOfChain.get(Number(c.chain))!.workflowId, c })),
  );
  const problems: LedgerProblem[] = [];
  let records = 0;
  for (const { id: k, key } of part) {
    const kept = (rows.get(k) ?? [])
      .map((r) => ({ ...chainRow(r), taskQueue: r.task_queue === null ? null : String(r.task_queue) }))
      .sort((a, b) => a.pos - b.pos);
    const h = heads.get(k)?.[0];
    records += kept.length;
    const head = h && {
      lastSeq: Number(h.last_seq),
      lastPos: Number(h.last_pos),
      lastHash: String(h.last_hash),
      anchorSeq: h.anchor_seq === null ? null : Number(h.anchor_seq),
      anchorHash: h.anchor_hash === null ? null : String(h.anchor_hash),
    };
    const found = verifyChain(key, kept, head);
    problems.push(...found);
    const changed = new Set(found.filter((p) => p.problem === 'changed').map((p) => p.seq));
    const parsed = kept.flatMap((r) => {
      try {
        const body = JSON.parse(r.body) as ChainBody;
        return [{ seq: r.seq, body, changed: changed.has(r.seq), taskQueue: r.taskQueue }];
      } catch {
        return []; // named by verifyChain
      }
    });
    problems.push(...refoldChain(key, parsed, reviews, calls.get(k) ?? [], approvers.get(k) ?? []));
  }
  return { problems, records };
}

/** The reviews of these calls (a review's row is the reviews workflow's; its body names the call), oldest first. */
async function reviewsOf(
  db: Pick<SchemaRunner, 'all'>,
  calls: Array<{ workflowId: string; c: Row }>,
): Promise<Map<string, LedgerReview>> {
  const ids = [...new Set(calls.map(({ c }) => String(c.call_id)))];
  const wanted = new Set(calls.map(({ workflowId, c }) => `${workflowId}\u0000${c.call_id}`));
  const found: Array<{ at: number; pos: number; review: LedgerReview }> = [];
  for (let i = 0; i < ids.length; i += IDS) {
    const part = ids.slice(i, i + IDS);
    for (const r of await db.all(
      `SELECT body, written_ms, pos FROM ledger_entries WHERE kind = 'review' AND call_id IN (${part.map(() => '?').join(', ')})`,
      part,
    )) {
      let review: LedgerReview;
      try {
        review = JSON.parse(unpack(r.body as Uint8Array)) as LedgerReview;
      } catch {
        continue; // its own chain names it
      }
      if (wanted.has(`${review.workflowId}\u0000${review.callId}`))
        found.push({ at: Number(r.written_ms), pos: Number(r.pos), review });
    }
  }
  found.sort((a, b) => (a.at === b.at ? a.pos - b.pos : a.at < b.at ? -1 : 1));
  return newestReviews(found.map((f) => f.review));
}
