// `countersign ledger verify`: the store recomputes its chains (a record changed or removed by hand is named), and,
// for the runs Temporal still retains, each chain is compared with its run's history: every `recordLedger` activity
// the run scheduled carries the entries it handed the ledger, decoded here with the client's data converter. Reading
// a history needs no worker.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { LedgerWrite } from '../../contract/ledgerRecords';
import { WORKFLOW_TYPE } from '../../contract/messages';
import { REVIEWS_WORKFLOW_TYPE } from '../../contract/reviewMessages';
import type { LedgerProblem, LedgerStore, VerifyResult } from '../../storage/ledger/ledgerStore';
import { canonicalJson } from '../../storage/ledger/ledgerChain';
import { QUEUE_NAME, checkQueryValues, forEachLimited } from '../visibility';
import { withLedger } from './ledgerAccess';
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

export interface LedgerVerification extends VerifyResult {
  /** Chains compared with their run's retained history. */
  comparedWithHistory: number;
}

/** The activity that writes the ledger: its scheduled inputs are what the run handed it. */
export const RECORD_LEDGER = 'recordLedger';
const IN_FLIGHT = 4;

/** What one execution's history says it handed the ledger: the chain and its entries (and reviews) by seq. */
async function handedInHistory(client: Client, run: WorkflowExecutionInfo): Promise<LedgerWrite[]> {
  const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const writes: LedgerWrite[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== RECORD_LEDGER) continue;
    writes.push(
      await decodeFromPayloadsAtIndex<LedgerWrite>(client.options.loadedDataConverter, 0, scheduled.input?.payloads),
    );
  }
  return writes;
}

/** Two values alike by content: the chain's canonical JSON, with a missing value never alike a present one. */
const alike = (a: unknown, b: unknown): boolean =>
  (a === undefined) === (b === undefined) && canonicalJson(a) === canonicalJson(b);

/** The fields of `handed` the kept entry does not hold alike ("decision", "approver"), or none. */
function differing(handed: Record<string, unknown>, kept: unknown): string[] {
  const row = (kept && typeof kept === 'object' ? kept : {}) as Record<string, unknown>;
  return Object.keys(handed).filter((k) => !alike(handed[k], row[k]));
}

/** Problems of one chain against what its history handed the ledger. */
export async function compareChain(ledger: LedgerStore, writes: LedgerWrite[]): Promise<LedgerProblem[]> {
  if (!writes.length) return [];
  const key = { workflowId: writes[0]!.workflowId, chainId: writes[0]!.chainId };
  const handed = new Map<number, Record<string, unknown>>();
  for (const w of writes)
    for (const item of [...(w.entries ?? []), ...(w.reviews ?? [])])
      handed.set(item.seq, item as unknown as Record<string, unknown>);
  if (!handed.size) return []; // only waiting calls handed so far: no record to compare
  const rows = await ledger.chain(key);
  const kept = new Map(rows.map((row) => [row.seq, row.entry]));
  const [firstSeq] = [...handed.keys()].sort((a, b) => a - b);
  if (!rows.length)
    return [
      {
        ...key,
        seq: firstSeq ?? 0,
        problem: 'differs from history',
        detail: `none of the ${handed.size} record(s) the run's history handed the ledger is in it (ledger backfill writes a retained run in)`,
      },
    ];
  // Records before the first one kept were pruned (or removed, which the chain's own check names).
  const firstKept = Math.min(...rows.map((row) => row.seq));
  const problems: LedgerProblem[] = [];
  for (const [seq, entry] of [...handed].sort(([a], [b]) => a - b)) {
    if (seq < firstKept) continue;
    const problem = (detail: string): LedgerProblem => ({ ...key, seq, problem: 'differs from history', detail });
    if (!kept.has(seq)) problems.push(problem(`seq ${seq} is in the run's history but not in the ledger`));
    else {
      const fields = differing(entry, kept.get(seq));
      if (fields.length) problems.push(problem(`seq ${seq} differs from the run's history in ${fields.join(', ')}`));
    }
  }
  return problems;
}

/** Every chain in range recomputed by the store, and each retained run's chain compared with its history. */
export async function verifyLedger(client: Client | undefined, o: VerifyOptions = {}): Promise<LedgerVerification> {
  const since = o.since === undefined ? undefined : sinceIso(o.since);
  checkQueryValues([['task queue', o.taskQueue, QUEUE_NAME]]);
  return withLedger(o.ledger, async (ledger) => {
    const result = await ledger.verify(since ? { sinceIso: since } : {});
    if (!client) return { ...result, comparedWithHistory: 0 };
    const clauses = [`(WorkflowType = '${WORKFLOW_TYPE}' OR WorkflowType = '${REVIEWS_WORKFLOW_TYPE}')`];
    if (since) clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`);
    if (o.taskQueue) clauses.push(`TaskQueue = '${o.taskQueue}'`);
    const runs: WorkflowExecutionInfo[] = [];
    for await (const run of client.workflow.list({ query: clauses.join(' AND ') })) runs.push(run);
    // A chain's writes may be spread over its executions (continue-as-new): gathered per chain before comparing.
    const chains = new Map<string, LedgerWrite[]>();
    await forEachLimited(runs, IN_FLIGHT, async (run) => {
      for (const w of await handedInHistory(client, run)) {
        const id = `${w.workflowId}\n${w.chainId}`;
        chains.set(id, [...(chains.get(id) ?? []), w]);
      }
    });
    const problems = [...result.problems];
    for (const writes of chains.values()) problems.push(...(await compareChain(ledger, writes)));
    return { ...result, problems, comparedWithHistory: chains.size };
  });
}
