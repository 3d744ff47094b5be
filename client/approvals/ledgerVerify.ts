// `countersign ledger verify`: the store recomputes its chains (a record changed or removed by hand is named), and,
// for the runs Temporal still retains, each chain is compared with its run's history: every `recordLedger` activity
// the run scheduled carries the entries it handed the ledger, and its result the ledger it wrote to (ledgerHistory.ts):
// a run written to another ledger is named as such, not as records missing from this one.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { LedgerWrite } from '../../contract/ledgerRecords';
import { WORKFLOW_TYPE } from '../../contract/messages';
import { REVIEWS_WORKFLOW_TYPE } from '../../contract/reviewMessages';
import type { LedgerProblem, LedgerStore, VerifyResult } from '../../storage/ledger/ledgerStore';
import { canonicalJson } from '../../storage/ledger/ledgerChain';
import { QUEUE_NAME, checkQueryValues, forEachLimited } from '../visibility';
import { withLedger } from './ledgerAccess';
import { type HandedWrite, RECORD_LEDGER, elsewhereLine, handedInHistory } from './ledgerHistory';
import { sinceIso } from './reportPeriod';

export interface VerifyOptions {
  /** Only chains with a record within this long (e.g. 30d); default every chain. */
  since?: string;
  /**
   * Only runs of this task queue are compared with their history: in a namespace shared with runs that write
   * another ledger (another team's, a test's), those would be named as missing from this one.
   */
  taskQueue?: string;
  ledger?: LedgerStore;
}

/** A chain whose history says its records were written to another ledger than this one. */
export interface WrittenElsewhere {
  workflowId: string;
  chainId: string;
  /** The other ledger's id, and this one's. */
  ledgerId: string;
  thisLedgerId: string;
  /** Its records missing here that went there. */
  records: number;
  /** `written to ledger <id>, not this one (<id>): set COUNTERSIGN_LEDGER_URL the same …` */
  detail: string;
}

export interface LedgerVerification extends VerifyResult {
  /** Chains compared with their run's retained history. */
  comparedWithHistory: number;
  /** Chains written to another ledger (not counted among the problems; the command exits 1 for them too). */
  writtenElsewhere: WrittenElsewhere[];
}

export { RECORD_LEDGER };
const IN_FLIGHT = 4;

/** Two values alike by content: the chain's canonical JSON, with a missing value never alike a present one. */
const alike = (a: unknown, b: unknown): boolean =>
  (a === undefined) === (b === undefined) && canonicalJson(a) === canonicalJson(b);

/** The fields of `handed` the kept entry does not hold alike ("decision", "approver"), or none. */
function differing(handed: Record<string, unknown>, kept: unknown): string[] {
  const row = (kept && typeof kept === 'object' ? kept : {}) as Record<string, unknown>;
  return Object.keys(handed).filter((k) => !alike(handed[k], row[k]));
}

/** Problems of one chain against what its history handed the ledger (results before ledger ids). */
export async function compareChain(ledger: LedgerStore, writes: LedgerWrite[]): Promise<LedgerProblem[]> {
  return (
    await checkChain(
      ledger,
      writes.map((write) => ({ write })),
    )
  ).problems;
}

/**
 * One chain against what its history handed the ledger: records missing here that the history says went to another
 * ledger are that ledger's (`elsewhere`); the rest missing, or unlike what was handed, are problems.
 */
export async function checkChain(
  ledger: LedgerStore,
  writes: HandedWrite[],
): Promise<{ problems: LedgerProblem[]; elsewhere?: WrittenElsewhere }> {
  if (!writes.length) return { problems: [] };
  const key = { workflowId: writes[0]!.write.workflowId, chainId: writes[0]!.write.chainId };
  const handed = new Map<number, Record<string, unknown>>();
  const wentTo = new Map<number, Set<string>>(); // seq: the ledgers its writes' results name
  for (const { write, ledgerId } of writes)
    for (const item of [...(write.entries ?? []), ...(write.reviews ?? [])]) {
      handed.set(item.seq, item as unknown as Record<string, unknown>);
      if (ledgerId) wentTo.set(item.seq, (wentTo.get(item.seq) ?? new Set()).add(ledgerId));
    }
  if (!handed.size) return { problems: [] }; // only waiting calls handed so far: no record to compare
  const rows = await ledger.chain(key);
  const kept = new Map(rows.map((row) => [row.seq, row.entry]));
  // Records before the first one kept were pruned (or removed, which the chain's own check names).
  const firstKept = rows.length ? Math.min(...rows.map((row) => row.seq)) : -Infinity;
  const others = new Map<string, number>();
  const mine = ledger.id;
  const missing = [...handed.keys()]
    .sort((a, b) => a - b)
    .filter((seq) => seq >= firstKept && !kept.has(seq))
    .filter((seq) => {
      const to = [...(wentTo.get(seq) ?? [])];
      if (!mine || !to.length || to.includes(mine)) return true;
      for (const other of to) others.set(other, (others.get(other) ?? 0) + 1);
      return false;
    });
  const [other] = [...others].sort(([, a], [, b]) => b - a);
  const elsewhere = other && {
    ...key,
    ledgerId: other[0],
    thisLedgerId: mine!,
    records: other[1],
    detail: elsewhereLine(other[0], mine!),
  };
  const problems: LedgerProblem[] = [];
  const problem = (seq: number, detail: string): LedgerProblem => ({
    ...key,
    seq,
    problem: 'differs from history',
    detail,
  });
  if (!rows.length) {
    if (missing.length)
      problems.push(
        problem(
          missing[0]!,
          `none of the ${missing.length} record(s) the run's history handed the ledger is in it (ledger backfill writes a retained run in)`,
        ),
      );
    return { problems, ...(elsewhere ? { elsewhere } : {}) };
  }
  for (const seq of missing) problems.push(problem(seq, `seq ${seq} is in the run's history but not in the ledger`));
  for (const [seq, entry] of [...kept].sort(([a], [b]) => a - b)) {
    if (!handed.has(seq)) continue;
    const fields = differing(handed.get(seq)!, entry);
    if (fields.length) problems.push(problem(seq, `seq ${seq} differs from the run's history in ${fields.join(', ')}`));
  }
  problems.sort((a, b) => a.seq - b.seq);
  return { problems, ...(elsewhere ? { elsewhere } : {}) };
}

/** Every chain in range recomputed by the store, and each retained run's chain compared with its history. */
export async function verifyLedger(client: Client | undefined, o: VerifyOptions = {}): Promise<LedgerVerification> {
  const since = o.since === undefined ? undefined : sinceIso(o.since);
  checkQueryValues([['task queue', o.taskQueue, QUEUE_NAME]]);
  return withLedger(o.ledger, async (ledger) => {
    const result = await ledger.verify(since ? { sinceIso: since } : {});
    if (!client) return { ...result, comparedWithHistory: 0, writtenElsewhere: [] };
    const clauses = [`(WorkflowType = '${WORKFLOW_TYPE}' OR WorkflowType = '${REVIEWS_WORKFLOW_TYPE}')`];
    if (since) clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`);
    if (o.taskQueue) clauses.push(`TaskQueue = '${o.taskQueue}'`);
    const runs: WorkflowExecutionInfo[] = [];
    for await (const run of client.workflow.list({ query: clauses.join(' AND ') })) runs.push(run);
    // A chain's writes may be spread over its executions (continue-as-new): gathered per chain before comparing.
    const chains = new Map<string, HandedWrite[]>();
    await forEachLimited(runs, IN_FLIGHT, async (run) => {
      for (const h of await handedInHistory(client, run)) {
        const id = `${h.write.workflowId}\n${h.write.chainId}`;
        chains.set(id, [...(chains.get(id) ?? []), h]);
      }
    });
    const problems = [...result.problems];
    const writtenElsewhere: WrittenElsewhere[] = [];
    for (const writes of chains.values()) {
      const checked = await checkChain(ledger, writes);
      problems.push(...checked.problems);
      if (checked.elsewhere) writtenElsewhere.push(checked.elsewhere);
    }
    return { ...result, problems, comparedWithHistory: chains.size, writtenElsewhere };
  });
}
