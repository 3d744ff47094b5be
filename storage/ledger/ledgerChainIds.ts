// Schema 6 names a chain in the big tables by ledger_chains' integer id (ledgerMigration6.ts): the SQL pieces that
// turn a (workflow id, chain id) into it, and the ids of the chains a write touches, their rows made when missing.
import type { SchemaRunner } from './ledgerSchema';

export type ChainKey = { workflowId: string; chainId: string };

/** The id of the chain (workflow id, chain id), bound in that order. */
export const CHAIN_OF = '(SELECT id FROM ledger_chains WHERE workflow_id = ? AND chain_id = ?)';

/** The ids of every chain of a run, bound by its workflow id. */
export const CHAINS_OF_RUN = '(SELECT id FROM ledger_chains WHERE workflow_id = ?)';

/** `alias`'s rows joined to their chain's keys, as `h`. */
export const withKeys = (table: string, alias: string): string =>
  `${table} ${alias} JOIN ledger_chains h ON h.id = ${alias}.chain`;

export const chainText = (k: ChainKey): string => `${k.workflowId}\n${k.chainId}`;

/**
 * The ids of these chains; a chain with no row yet gets one with no head (last_seq NULL: no record written), its
 * task queue `taskQueue` ('' for an early review's placeholder).
 */
export async function chainIdsOf(
  db: SchemaRunner,
  keys: Array<ChainKey & { taskQueue: string }>,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const wanted = [...new Map(keys.map((k) => [chainText(k), k])).values()];
  const look = async (part: ChainKey[]) => {
    for (let i = 0; i < part.length; i += 200) {
      const some = part.slice(i, i + 200);
      const rows = await db.all(
        `SELECT id, workflow_id, chain_id FROM ledger_chains WHERE ${some
          .map(() => '(workflow_id = ? AND chain_id = ?)')
          .join(' OR ')}`,
        some.flatMap((k) => [k.workflowId, k.chainId]),
      );
      for (const r of rows)
        ids.set(chainText({ workflowId: String(r.workflow_id), chainId: String(r.chain_id) }), Number(r.id));
    }
  };
  await look(wanted);
  // In one order (PostgreSQL: two writes making the same rows wait on each other's, never on each other).
  const missing = wanted.filter((k) => !ids.has(chainText(k))).sort((a, b) => (chainText(a) < chainText(b) ? -1 : 1));
  if (!missing.length) return ids;
  for (let i = 0; i < missing.length; i += 200) {
    const some = missing.slice(i, i + 200);
    for (const r of await db.all(
      `INSERT INTO ledger_chains (workflow_id, chain_id, task_queue) VALUES ${some.map(() => '(?, ?, ?)').join(', ')}
       ON CONFLICT (workflow_id, chain_id) DO NOTHING RETURNING id, workflow_id, chain_id`,
      some.flatMap((k) => [k.workflowId, k.chainId, k.taskQueue]),
    ))
      ids.set(chainText({ workflowId: String(r.workflow_id), chainId: String(r.chain_id) }), Number(r.id));
  }
  // Rows another write made first (PostgreSQL: it waited for that write's commit) are read.
  const raced = missing.filter((k) => !ids.has(chainText(k)));
  if (raced.length) await look(raced);
  return ids;
}
