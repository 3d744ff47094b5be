// The ledger's records as the leaves of one Merkle tree (merkleTree.ts), the tree a checkpoint signs. A record
// becomes a leaf when a checkpoint is taken: it gets the next place (ledger_seq) after every leaf so far, so the tree
// only ever grows at its end, whatever order concurrent writers committed in. A leaf is the record's chain, seq and
// hash (which covers its content and place in the chain) with the run's task queue and agent, which the chain's hash
// does not cover. Prune keeps the leaf hashes of the records it deletes, so older trees still recompute.
import { canonicalJson } from './ledgerChain';
import type { SchemaRunner } from './ledgerSchema';
import { leafHash } from './merkleTree';

type Row = Record<string, unknown>;

/** One leaf of the tree: its place (1, 2, …), the record it stands for, its hash. */
export interface LedgerLeaf {
  index: number;
  workflowId: string;
  chainId: string;
  seq: number;
  leaf: Buffer;
  /** Deleted by prune (only its leaf hash is kept). */
  pruned?: true;
}

/** The leaf hash of a kept record. */
export const recordLeaf = (r: {
  workflowId: string;
  chainId: string;
  seq: number;
  hash: string;
  taskQueue: string | null;
  agent: string | null;
}): Buffer => leafHash(canonicalJson(r));

// A record's leaf, from `ledger_entries e` joined to its chain's keys as `h` (schema 6 keeps them there).
const LEAF_COLUMNS = 'e.ledger_seq, h.workflow_id, h.chain_id, e.seq, e.hash, e.task_queue, e.agent';
const LEAF_FROM = 'ledger_entries e JOIN ledger_chains h ON h.id = e.chain';
const leafOf = (r: Row): LedgerLeaf => {
  const key = { workflowId: String(r.workflow_id), chainId: String(r.chain_id), seq: Number(r.seq) };
  return r.leaf === null || r.leaf === undefined
    ? {
        index: Number(r.ledger_seq),
        ...key,
        leaf: recordLeaf({
          ...key,
          hash: String(r.hash),
          taskQueue: r.task_queue === null ? null : String(r.task_queue),
          agent: r.agent === null ? null : String(r.agent),
        }),
      }
    : { index: Number(r.ledger_seq), ...key, leaf: Buffer.from(String(r.leaf), 'base64url'), pruned: true };
};

/** The tree's size now: the highest place given (a kept record's or a pruned one's). */
export async function treeSize(db: Pick<SchemaRunner, 'all'>): Promise<number> {
  const [row] = await db.all(
    `SELECT (SELECT COALESCE(MAX(ledger_seq), 0) FROM ledger_entries) AS kept,
            (SELECT COALESCE(MAX(ledger_seq), 0) FROM ledger_pruned_leaves) AS pruned`,
  );
  return Math.max(Number(row?.kept ?? 0), Number(row?.pruned ?? 0));
}

/**
 * Gives every record without a place the next ones, in the order they were written (then by chain and position),
 * and returns the tree's new size. Run in a transaction that holds the ledger-wide lock, so two never interleave.
 */
export async function placeNewRecords(db: SchemaRunner): Promise<number> {
  const size = await treeSize(db);
  await db.run(
    `UPDATE ledger_entries SET ledger_seq = CAST(? AS BIGINT) + n.rn
     FROM (SELECT e.chain AS c, e.seq AS s,
             row_number() OVER (ORDER BY e.written_ms, h.workflow_id, h.chain_id, e.pos) AS rn
           FROM ${LEAF_FROM} WHERE e.ledger_seq IS NULL) AS n
     WHERE ledger_entries.chain = n.c AND ledger_entries.seq = n.s`,
    [size],
  );
  return treeSize(db);
}

/**
 * Up to `limit` leaves after place `after`, in order (kept records and pruned ones' hashes together). Each table is
 * read in its index's order and the two merged here: a sort of their union would read the rest of the tree each page.
 */
export async function leavesAfter(db: Pick<SchemaRunner, 'all'>, after: number, limit: number): Promise<LedgerLeaf[]> {
  const n = Math.max(1, Math.floor(limit));
  const kept = await db.all(
    `SELECT ${LEAF_COLUMNS} FROM ${LEAF_FROM} WHERE e.ledger_seq > ? ORDER BY e.ledger_seq LIMIT ${n}`,
    [after],
  );
  const pruned = await db.all(
    `SELECT ledger_seq, workflow_id, chain_id, seq, leaf FROM ledger_pruned_leaves WHERE ledger_seq > ?
     ORDER BY ledger_seq LIMIT ${n}`,
    [after],
  );
  // A full page of one table may stop before the other's last: only what both have read up to is complete.
  const last = (rows: Row[]) => (rows.length === n ? Number(rows[n - 1]!.ledger_seq) : Infinity);
  const upTo = Math.min(last(kept), last(pruned));
  return [...kept, ...pruned]
    .map(leafOf)
    .filter((l) => l.index <= upTo)
    .sort((a, b) => a.index - b.index)
    .slice(0, n);
}

/** Before prune deletes these records of a chain: the leaf hashes of those that have a place are kept. */
export async function keepPrunedLeaves(
  db: SchemaRunner,
  key: { workflowId: string; chainId: string },
  seqs: number[],
  now: string,
): Promise<void> {
  for (let i = 0; i < seqs.length; i += 500) {
    const part = seqs.slice(i, i + 500);
    const rows = await db.all(
      `SELECT ${LEAF_COLUMNS} FROM ${LEAF_FROM} WHERE h.workflow_id = ? AND h.chain_id = ? AND e.ledger_seq IS NOT NULL
       AND e.seq IN (${part.map(() => '?').join(', ')})`,
      [key.workflowId, key.chainId, ...part],
    );
    for (const r of rows) {
      const l = leafOf(r);
      await db.run(
        `INSERT INTO ledger_pruned_leaves (ledger_seq, leaf, workflow_id, chain_id, seq, pruned_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        [l.index, l.leaf.toString('base64url'), l.workflowId, l.chainId, l.seq, now],
      );
    }
  }
}
