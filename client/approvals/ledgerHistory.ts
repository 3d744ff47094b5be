// What a run's history says about its ledger writes: every `recordLedger` activity it scheduled carries what it
// handed the ledger (its input), and each completed one the id of the ledger it wrote to (its result; none before
// ledgers had ids). Read with the client's data converter; reading a history needs no worker. With it, `ledger
// verify` and `approvals` tell a run written to another ledger (a worker, CLI or inbox with another
// COUNTERSIGN_LEDGER_URL, e.g. the default `.temporal/ledger.db` from another folder) from records gone missing.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { LedgerWrite, LedgerWriteResult } from '../../contract/ledgerRecords';
import { WORKFLOW_TYPE } from '../../contract/messages';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { forEachLimited } from '../visibility';

/** The activity that writes the ledger: its scheduled inputs are what the run handed it. */
export const RECORD_LEDGER = 'recordLedger';

/** One write a run handed the ledger, and the ledger its completed activity says it went to. */
export interface HandedWrite {
  write: LedgerWrite;
  /** Absent while it has not completed, or for a result recorded before ledgers had ids. */
  ledgerId?: string;
}

/** The one line for records written to another ledger than the one read. */
export const elsewhereLine = (other: string, mine: string): string =>
  `written to ledger ${other}, not this one (${mine}): set COUNTERSIGN_LEDGER_URL the same for the worker, the CLI and the inbox`;

/** Every ledger write in one execution's history, oldest first. */
export async function handedInHistory(client: Client, run: WorkflowExecutionInfo): Promise<HandedWrite[]> {
  const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const converter = client.options.loadedDataConverter;
  const writes = new Map<string, HandedWrite>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === RECORD_LEDGER) {
      const write = await decodeFromPayloadsAtIndex<LedgerWrite>(converter, 0, scheduled.input?.payloads);
      writes.set(String(event.eventId), { write });
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const handed = completed && writes.get(String(completed.scheduledEventId));
    if (handed) {
      const result = await decodeFromPayloadsAtIndex<LedgerWriteResult | undefined>(
        converter,
        0,
        completed.result?.payloads,
      );
      if (typeof result?.ledgerId === 'string') handed.ledgerId = result.ledgerId;
    }
  }
  return [...writes.values()];
}

/** Runs listed from visibility, newest first, and histories read (only of runs this ledger holds nothing of). */
const MAX_RUNS = 1_000;
const MAX_HISTORIES = 200;
const IN_FLIGHT = 8;

export interface RunsElsewhere {
  /** The other ledger's id. */
  ledgerId: string;
  runs: number;
  /** More runs were on the queue than were read: at least this many. */
  atLeast?: true;
}

/**
 * The runs (agent runs matching `query`, a visibility filter) this ledger holds nothing of whose history says they
 * wrote to another ledger, counted per other ledger. Bounded: the newest MAX_RUNS runs, MAX_HISTORIES histories.
 */
export async function runsWrittenElsewhere(
  client: Client,
  ledger: LedgerStore,
  clauses: string[] = [],
): Promise<RunsElsewhere[]> {
  const mine = ledger.id;
  if (!mine) return [];
  const runs: WorkflowExecutionInfo[] = [];
  const query = [`WorkflowType = '${WORKFLOW_TYPE}'`, ...clauses].join(' AND ');
  for await (const run of client.workflow.list({ query })) if (runs.push(run) >= MAX_RUNS) break;
  const held = await ledger.heldRuns([...new Set(runs.map((r) => r.workflowId))]);
  const unheld = runs.filter((r) => !held.has(r.workflowId));
  const counted = new Map<string, Set<string>>();
  await forEachLimited(unheld.slice(0, MAX_HISTORIES), IN_FLIGHT, async (run) => {
    for (const { ledgerId } of await handedInHistory(client, run))
      if (ledgerId && ledgerId !== mine)
        counted.set(ledgerId, (counted.get(ledgerId) ?? new Set()).add(run.workflowId));
  });
  const capped = runs.length >= MAX_RUNS || unheld.length > MAX_HISTORIES;
  return [...counted].map(([ledgerId, ids]) => ({ ledgerId, runs: ids.size, ...(capped ? { atLeast: true } : {}) }));
}
