// Temporal Cloud actions, counted from workflow histories the way Cloud documents them
// (https://docs.temporal.io/cloud/actions). What a history shows, and what each event costs:
//   workflow started (a start, signal-with-start, continue-as-new's new run, a child)        1
//   activity started or retried (the Started event carries the attempt: attempt n is n)     n
//   local activities: all of one workflow task's markers                                     1
//   signal received (client or workflow), and a signal this run sends to another             1
//   update accepted (Cloud also bills a rejected update, which leaves no event)              1
//   timer started (condition() with a timeout starts one too)                                1
//   search-attribute upsert, unless it only sets TemporalChangeVersion (patched())          1
//   child workflow started (counted where it is initiated: the child's start)                1
// Free: workflow tasks, activity scheduling and completion, patch markers, the workflow's end, search attributes
// sent with the start. Billed but not in a history, so not counted here: queries, rejected updates, and activity
// heartbeats that reach the server (Countersign's model call sends one per attempt when it streams text deltas).

/** What counting reads of a history event (a fetched history's events, or one read from JSON, fit it). */
export interface HistoryEvent {
  eventId?: unknown;
  workflowExecutionStartedEventAttributes?: unknown;
  workflowTaskCompletedEventAttributes?: unknown;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskStartedEventAttributes?: { scheduledEventId?: unknown; attempt?: number | null } | null;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null;
  markerRecordedEventAttributes?: { markerName?: string | null } | null;
  workflowExecutionSignaledEventAttributes?: unknown;
  signalExternalWorkflowExecutionInitiatedEventAttributes?: unknown;
  workflowExecutionUpdateAcceptedEventAttributes?: unknown;
  timerStartedEventAttributes?: unknown;
  upsertWorkflowSearchAttributesEventAttributes?: {
    searchAttributes?: { indexedFields?: Record<string, unknown> | null } | null;
  } | null;
  startChildWorkflowExecutionInitiatedEventAttributes?: unknown;
}

export interface Actions {
  total: number;
  workflowStarts: number;
  activities: number;
  localActivities: number;
  signals: number;
  updates: number;
  timers: number;
  upserts: number;
  childStarts: number;
  /** Activities by type (attempts), for saying where the actions go. */
  activityTypes: Record<string, number>;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
const CHANGE_VERSION = 'TemporalChangeVersion';

const num = (x: unknown) => Number(String(x ?? 0));

/**
 * The actions of `events`: one run's history, or a slice of it (only what lies in the slice is counted; `history`,
 * the whole, names the activities whose scheduling lies before the slice). Several runs: sumActions of each.
 */
export function countActions(events: HistoryEvent[], history: HistoryEvent[] = events): Actions {
  const a: Actions = {
    total: 0,
    workflowStarts: 0,
    activities: 0,
    localActivities: 0,
    signals: 0,
    updates: 0,
    timers: 0,
    upserts: 0,
    childStarts: 0,
    activityTypes: {},
  };
  const typeOf = new Map<string, string>();
  for (const e of history) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(String(e.eventId), scheduled.activityType?.name ?? '?');
  }
  // Local activities are billed once per workflow task: its markers follow its WorkflowTaskCompleted event.
  let task = 0;
  let billedTask = -1;
  for (const [i, e] of events.entries()) {
    if (e.workflowTaskCompletedEventAttributes) task = i + 1;
    if (e.workflowExecutionStartedEventAttributes) a.workflowStarts++;
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const attempts = Math.max(1, num(started.attempt));
      const type = typeOf.get(String(started.scheduledEventId)) ?? '?';
      a.activities += attempts;
      a.activityTypes[type] = (a.activityTypes[type] ?? 0) + attempts;
    }
    if (e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER && billedTask !== task) {
      billedTask = task;
      a.localActivities++;
    }
    if (e.workflowExecutionSignaledEventAttributes || e.signalExternalWorkflowExecutionInitiatedEventAttributes)
      a.signals++;
    if (e.workflowExecutionUpdateAcceptedEventAttributes) a.updates++;
    if (e.timerStartedEventAttributes) a.timers++;
    const upsert = e.upsertWorkflowSearchAttributesEventAttributes;
    if (upsert && Object.keys(upsert.searchAttributes?.indexedFields ?? {}).some((k) => k !== CHANGE_VERSION))
      a.upserts++;
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) a.childStarts++;
  }
  a.total =
    a.workflowStarts + a.activities + a.localActivities + a.signals + a.updates + a.timers + a.upserts + a.childStarts;
  return a;
}

/**
 * One approval: from the decision (the first signal or accepted update after `afterEventId`) to the completion of
 * the first `toolType` activity scheduled after it, inclusive. The events and the actions in that window.
 */
export function approvalWindow(
  events: HistoryEvent[],
  toolType: string,
  afterEventId = 0,
): { events: HistoryEvent[]; actions: Actions } {
  const id = (e: HistoryEvent) => num(e.eventId);
  const decision = events.find(
    (e) =>
      id(e) > afterEventId &&
      (e.workflowExecutionSignaledEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes),
  );
  if (!decision) throw new Error('no decision (signal or accepted update) in this history');
  const scheduled = events.find(
    (e) => id(e) > id(decision) && e.activityTaskScheduledEventAttributes?.activityType?.name === toolType,
  );
  if (!scheduled) throw new Error(`no ${toolType} activity after the decision`);
  const completed = events.find(
    (e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(scheduled.eventId),
  );
  if (!completed) throw new Error(`the ${toolType} activity after the decision did not complete`);
  const window = events.filter((e) => id(e) >= id(decision) && id(e) <= id(completed));
  return { events: window, actions: countActions(window, events) };
}

/** Several runs' actions (a run and its continuation), field by field. */
export function sumActions(...all: Actions[]): Actions {
  const sum = { ...countActions([]), activityTypes: {} as Record<string, number> };
  for (const a of all) {
    for (const k of Object.keys(sum) as Array<keyof Actions>)
      if (k !== 'activityTypes') (sum[k] as number) += a[k] as number;
    for (const [t, n] of Object.entries(a.activityTypes)) sum.activityTypes[t] = (sum.activityTypes[t] ?? 0) + n;
  }
  return sum;
}

/** `a` − `b`, field by field (activity types too): where one system's actions go beyond another's. */
export function actionsBeyond(a: Actions, b: Actions): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [
    'workflowStarts',
    'localActivities',
    'signals',
    'updates',
    'timers',
    'upserts',
    'childStarts',
  ] as const)
    if (a[k] !== b[k]) out[k] = a[k] - b[k];
  for (const t of new Set([...Object.keys(a.activityTypes), ...Object.keys(b.activityTypes)])) {
    const d = (a.activityTypes[t] ?? 0) - (b.activityTypes[t] ?? 0);
    if (d) out[`activity ${t}`] = d;
  }
  return out;
}
