// Sessions: one conversation carried across runs (the OpenAI Agents SDK's sessions), kept in Temporal itself, no
// second database. Run N of session S is workflow `session-S-N`; run N+1 starts with run N's whole conversation,
// trimmed to the session limit, as its `history`. A session whose newest run has not finished refuses the next
// start (SessionBusyError) rather than queueing it: the caller learns at once, and a queue would hide a stuck approval.
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { ConversationItem } from '../../contract/items';
import type { RunInput } from '../../contract/messages';
import { HitlStatus } from '../../contract/searchAttributes';
import { CountersignError } from '../errors';
import { conversationOf, describeRun } from '../run/runReads';
import { SessionBusyError, SessionError } from './sessionErrors';
import { checkSessionId, historyBytes, rulesForAgent, sessionRunId, trimHistory } from './sessionHistory';

/** One run of a session as Temporal describes it. */
interface SessionRun {
  n: number;
  workflowId: string;
  /** Temporal's status once the run has closed (COMPLETED, FAILED, TERMINATED, …); undefined while it runs. */
  closed: string | undefined;
  /** The run's own status (search attribute HitlStatus): Running, AwaitingApproval, Completed, Failed. */
  hitlStatus: string | undefined;
  startedAt: Date;
}

async function describeSessionRun(client: Client, session: string, n: number): Promise<SessionRun | undefined> {
  const workflowId = sessionRunId(session, n);
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return {
      n,
      workflowId,
      closed: d.status.name === 'RUNNING' ? undefined : d.status.name,
      hitlStatus: d.typedSearchAttributes.get(HitlStatus),
      startedAt: d.startTime,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * The session's newest run: runs 1, 2, 4, 8 … until one is missing, then a binary search in between (runs are
 * numbered without gaps, so a few describes find it). Not a visibility query (`WorkflowId STARTS_WITH …`):
 * visibility lags behind starts, so a run started a moment ago could be missed and its number handed out twice.
 */
async function newestRun(client: Client, session: string): Promise<SessionRun | undefined> {
  let found = await describeSessionRun(client, session, 1);
  if (!found) return undefined;
  let missing = 2;
  for (
    let run = await describeSessionRun(client, session, missing);
    run;
    run = await describeSessionRun(client, session, missing)
  ) {
    found = run;
    missing *= 2;
  }
  while (missing - found.n > 1) {
    const mid = Math.floor((found.n + missing) / 2);
    const run = await describeSessionRun(client, session, mid);
    if (run) found = run;
    else missing = mid;
  }
  return found;
}

/**
 * Whether the run still holds its session. A run whose conversation is over (HitlStatus Completed or Failed) but
 * which has not closed yet (it drains its notifications first) does not: nothing will change in its conversation.
 */
const busyStatus = (run: SessionRun): string | undefined =>
  run.closed || run.hitlStatus === 'Completed' || run.hitlStatus === 'Failed'
    ? undefined
    : (run.hitlStatus ?? 'Running');

/** The session's newest run and, while it holds the session, its status (AwaitingApproval or Running); undefined if none. */
export async function sessionHead(
  client: Client,
  session: string,
): Promise<{ workflowId: string; busy: string | undefined } | undefined> {
  const last = await newestRun(client, checkSessionId(session));
  return last && { workflowId: last.workflowId, busy: busyStatus(last) };
}

async function conversationOfRun(client: Client, workflowId: string): Promise<ConversationItem[]> {
  const items: ConversationItem[] = [];
  try {
    for await (const item of conversationOf(client, workflowId)) items.push(item);
  } catch (err) {
    throw new SessionError(`cannot read the conversation of ${workflowId}: ${(err as Error).message.split('\n')[0]}`);
  }
  return items;
}

export interface NextSessionRun {
  workflowId: string;
  /** What the run's input gains: the session, its history and (with sessionRules) the previous run's always-rules. */
  input: Pick<RunInput, 'session' | 'history' | 'alwaysRules'>;
}

/** The next run of a session: its workflow id and what it starts with. SessionBusyError while the newest run holds it. */
export async function nextSessionRun(
  client: Client,
  options: { session: string; agent: string; maxItems: number; sessionRules?: boolean },
): Promise<NextSessionRun> {
  const session = checkSessionId(options.session);
  const last = await newestRun(client, session);
  if (!last) return { workflowId: sessionRunId(session, 1), input: { session } };
  const busy = busyStatus(last);
  if (busy) throw new SessionBusyError(session, last.workflowId, busy);
  const history = trimHistory(await conversationOfRun(client, last.workflowId), options.maxItems);
  const alwaysRules = options.sessionRules ? await rulesOf(client, last.workflowId, options.agent) : undefined;
  return {
    workflowId: sessionRunId(session, last.n + 1),
    input: {
      session,
      ...(history.length ? { history } : {}),
      ...(alwaysRules && Object.keys(alwaysRules).length ? { alwaysRules } : {}),
    },
  };
}

/** The always-rules the previous run reports in its snapshot (RunSnapshot.alwaysRules), for a run of `agent`. */
async function rulesOf(client: Client, workflowId: string, agent: string) {
  const rules = rulesForAgent(await describeRun(client, workflowId), agent);
  if (!rules)
    throw new SessionError(
      `run ${workflowId} does not report its always-rules (its worker predates RunSnapshot.alwaysRules); start without sessionRules`,
    );
  return rules;
}

/** A start found its workflow id taken: in a session, by a concurrent start of the same run (busy, or closed since). */
export async function idTaken(client: Client, workflowId: string, session?: string): Promise<CountersignError> {
  if (!session)
    return new CountersignError(
      `a run with workflow id ${workflowId} already exists; pass a RunState to resume it, or choose another id`,
    );
  const run = await describeSessionRun(client, session, Number(workflowId.slice(workflowId.lastIndexOf('-') + 1)));
  return new SessionBusyError(session, workflowId, run && busyStatus(run));
}

// ── Reading a session ────────────────────────────────────────────────────────────────────────────────────────
export interface SessionRunRow {
  workflowId: string;
  /** Running, AwaitingApproval, Completed, Failed; for a run that was stopped, Temporal's status (Terminated, TimedOut, …). */
  status: string;
  startedAt: string;
  /** Conversation items (its history included); undefined when the run cannot be read. */
  items?: number;
}

export interface SessionView {
  session: string;
  runs: SessionRunRow[];
  next: {
    workflowId: string;
    /** The status of the run that holds the session: the next start is refused until it finishes. */
    busy?: string;
    /** The history the next run starts with, as things stand: items and JSON bytes, at most `maxItems` items. */
    historyItems: number;
    historyBytes: number;
    maxItems: number;
  };
}

const pascal = (status: string) => status.toLowerCase().replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase());

/** A session's runs, oldest first, and the size of the history its next run would start with. */
export async function describeSession(client: Client, session: string, maxItems: number): Promise<SessionView> {
  checkSessionId(session);
  const last = await newestRun(client, session);
  const runs: SessionRunRow[] = [];
  for (let n = 1; last && n <= last.n; n++) {
    const run = n === last.n ? last : await describeSessionRun(client, session, n);
    if (!run) continue; // removed by the namespace's retention
    const items = await describeRun(client, run.workflowId).then(
      (s) => s.cursor.items,
      () => undefined,
    );
    const status = run.closed ? pascal(run.closed) : (run.hitlStatus ?? 'Running');
    runs.push({
      workflowId: run.workflowId,
      status,
      startedAt: run.startedAt.toISOString(),
      ...(items !== undefined ? { items } : {}),
    });
  }
  const history = last ? trimHistory(await conversationOfRun(client, last.workflowId), maxItems) : [];
  const busy = last && busyStatus(last);
  return {
    session,
    runs,
    next: {
      workflowId: sessionRunId(session, (last?.n ?? 0) + 1),
      ...(busy ? { busy } : {}),
      historyItems: history.length,
      historyBytes: historyBytes(history),
      maxItems,
    },
  };
}
