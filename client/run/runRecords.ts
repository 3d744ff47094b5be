// A run as it reads when no worker serves it: what needs no worker to answer. Temporal's own record of the run
// (status, task queue, the search attributes the run last set: HitlStatus, HitlAgent, HitlPendingTools,
// HitlPendingSince) and the approvals ledger's records of its calls (call ids, tools, who decided what). `show`,
// `pending` and `audit` answer from it, with the worker-down line, instead of failing or saying nothing waits.
import type { Client } from '@temporalio/client';
import { HitlAgent, HitlPendingSince, HitlPendingTools, HitlStatus } from '../../contract/searchAttributes';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { withLedger } from '../approvals/ledgerAccess';
import { forEachLimited } from '../visibility';
import { rootCause } from '../../core/run/failures';
import { CountersignError } from '../errors';

/** A run without its worker: Temporal's record of it, and the ledger's records of its calls. */
export interface RunRecord {
  workflowId: string;
  taskQueue: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, … */
  executionStatus: string;
  /** What the run last said it does (HitlStatus), e.g. AwaitingApproval. */
  status?: string;
  agent?: string;
  /** The tools of the calls it waits on (HitlPendingTools), and since when (HitlPendingSince). */
  pendingTools: string[];
  pendingSince?: string;
  /** Its calls as the ledger has them, oldest first: those still pending, and those decided. */
  calls: ApprovalRecord[];
  /** Why the ledger could not be read (off, unreachable): then `calls` is empty and pendingTools is all there is. */
  ledgerProblem?: string;
}

/** Runs read at once. */
const READERS = 8;

/** The records of these runs (each as found; a run Temporal does not know is left out). */
export async function runRecords(client: Client, workflowIds: string[], ledger?: LedgerStore): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  let ledgerProblem: string | undefined;
  const calls = new Map<string, ApprovalRecord[]>();
  await withLedger(ledger, async (l) => {
    for (const workflowId of workflowIds) calls.set(workflowId, (await l.approvals({ workflowId })).records);
  }).catch((err: unknown) => (ledgerProblem = `the approvals ledger could not be read: ${(err as Error).message}`));
  await forEachLimited(workflowIds, READERS, async (workflowId) => {
    const d = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
    if (!d) return;
    const sa = d.typedSearchAttributes;
    const since = sa.get(HitlPendingSince);
    records.push({
      workflowId,
      taskQueue: d.taskQueue,
      executionStatus: d.status.name,
      ...(sa.get(HitlStatus) ? { status: sa.get(HitlStatus) } : {}),
      ...(sa.get(HitlAgent) ? { agent: sa.get(HitlAgent) } : {}),
      pendingTools: sa.get(HitlPendingTools) ?? [],
      ...(since ? { pendingSince: since.toISOString() } : {}),
      calls: calls.get(workflowId) ?? [],
      ...(ledgerProblem ? { ledgerProblem } : {}),
    });
  });
  return workflowIds.flatMap((id) => records.filter((r) => r.workflowId === id));
}

/** A closed run's failure, from its history (no worker replays it): thrown as `run <id> failed (<type>): <why>`. */
export async function closedOutcome(client: Client, workflowId: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).result();
  } catch (err) {
    const f = rootCause(err);
    throw new CountersignError(`run ${workflowId} failed (${f.type ?? 'error'}): ${f.message}`);
  }
}
