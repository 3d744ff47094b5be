// What a run's history says about its ledger writes: every `recordLedger` activity it scheduled carries what it
// handed the ledger (its input), and each completed one the id of the ledger it wrote to (its result; none before
// ledgers had ids). Runs of change ledgerRides also hand writes in their runTool and modelTurn inputs (`ledger`, and
// `ledgerWrite` in the result), and their last write's local activity says what it wrote in its result (`handed`). Read with the client's data converter; reading a history needs no worker. With it, `ledger
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
/** The activities whose input may carry a ledger write (workflows/ledgerWriter.ts ride). */
const CARRIERS = new Set(['runTool', 'modelTurn']);
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

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
  const decoded = <T>(payloads: Parameters<typeof decodeFromPayloadsAtIndex>[2]) =>
    decodeFromPayloadsAtIndex<T>(converter, 0, payloads);
  const writes = new Map<string, HandedWrite>();
  const carried = new Map<string, HandedWrite>();
  const order: HandedWrite[] = [];
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    const scheduled = event.activityTaskScheduledEventAttributes;
    const type = scheduled?.activityType?.name ?? '';
    if (type === RECORD_LEDGER) {
      const handed = { write: await decoded<LedgerWrite>(scheduled!.input?.payloads) };
      writes.set(id, handed);
      order.push(handed);
    } else if (CARRIERS.has(type)) {
      const input = await decoded<{ ledger?: LedgerWrite } | undefined>(scheduled!.input?.payloads);
      if (input?.ledger) {
        const handed = { write: input.ledger };
        carried.set(id, handed);
        order.push(handed);
      }
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const scheduledId = String(completed?.scheduledEventId);
    const handed = completed && (writes.get(scheduledId) ?? carried.get(scheduledId));
    if (handed) {
      const result = await decoded<(LedgerWriteResult & { ledgerWrite?: LedgerWriteResult }) | undefined>(
        completed.result?.payloads,
      );
      const ledgerId = writes.has(scheduledId) ? result?.ledgerId : result?.ledgerWrite?.ledgerId;
      if (typeof ledgerId === 'string') handed.ledgerId = ledgerId;
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER && localActivityType(marker.details) === RECORD_LEDGER) {
      const result = await decoded<LedgerWriteResult | undefined>(marker.details?.result?.payloads);
      if (result?.handed)
        order.push({ write: result.handed, ...(result.ledgerId ? { ledgerId: result.ledgerId } : {}) });
    }
  }
  return order;
}

/** A local activity marker's type, from its `data` (written by the SDK's core as plain JSON, never encoded). */
function localActivityType(
  details: Record<string, { payloads?: Array<{ data?: Uint8Array | null }> | null }> | null | undefined,
): string | undefined {
  const data = details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type;
  } catch {
    return undefined;
  }
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
    // A hint, not a check: a history this process cannot read (its payloads in a store it is not configured for, the
    // model turns' inputs among them) is left out rather than failing the listing it is printed under.
    const handed = await handedInHistory(client, run).catch(() => []);
    for (const { ledgerId } of handed)
      if (ledgerId && ledgerId !== mine)
        counted.set(ledgerId, (counted.get(ledgerId) ?? new Set()).add(run.workflowId));
  });
  const capped = runs.length >= MAX_RUNS || unheld.length > MAX_HISTORIES;
  return [...counted].map(([ledgerId, ids]) => ({ ledgerId, runs: ids.size, ...(capped ? { atLeast: true } : {}) }));
}
