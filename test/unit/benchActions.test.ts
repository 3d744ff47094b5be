// Temporal Cloud actions counted from a history (bench/actions.ts), as Cloud documents them: each rule on a made-up
// history, then a recorded run of the replay corpus.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { actionsBeyond, approvalWindow, countActions, type HistoryEvent, sumActions } from '../../bench/actions';

/** An event as counting reads it, with the attributes of events that cost nothing too. */
type E = HistoryEvent & { [attributes: string]: unknown };
const history = (events: Omit<E, 'eventId'>[]): E[] => events.map((e, i) => ({ ...e, eventId: i + 1 }));
const task = (): Omit<E, 'eventId'>[] => [
  { workflowTaskScheduledEventAttributes: {} },
  { workflowTaskStartedEventAttributes: {} },
  { workflowTaskCompletedEventAttributes: {} },
];
const localActivity = { markerRecordedEventAttributes: { markerName: 'core_local_activity' } };
const upsert = (...names: string[]) => ({
  upsertWorkflowSearchAttributesEventAttributes: {
    searchAttributes: { indexedFields: Object.fromEntries(names.map((n) => [n, {}])) },
  },
});

test('each kind of action once; a retried activity per attempt; free events not at all', () => {
  const events = history([
    { workflowExecutionStartedEventAttributes: {} }, // 1
    ...task(), // 2–4: free
    localActivity, // 5: one for the task...
    localActivity, // 6: ...however many markers it records
    { activityTaskScheduledEventAttributes: { activityType: { name: 'modelTurn' } } }, // 7
    { activityTaskStartedEventAttributes: { scheduledEventId: 7, attempt: 3 } }, // 8: three attempts
    { activityTaskCompletedEventAttributes: { scheduledEventId: 7 } },
    ...task(), // 10–12
    localActivity, // 13: another task's local activity
    upsert('HitlStatus', 'HitlPendingTools'), // 14: one upsert, however many attributes
    upsert('TemporalChangeVersion'), // 15: patched()'s own: free
    { markerRecordedEventAttributes: { markerName: 'core_patch' } }, // 16: free
    { timerStartedEventAttributes: {} }, // 17
    { workflowExecutionSignaledEventAttributes: {} }, // 18
    { workflowExecutionUpdateAcceptedEventAttributes: {} }, // 19
    { workflowExecutionUpdateCompletedEventAttributes: {} }, // 20: free
    { startChildWorkflowExecutionInitiatedEventAttributes: {} }, // 21
    { signalExternalWorkflowExecutionInitiatedEventAttributes: {} }, // 22
    { workflowExecutionCompletedEventAttributes: {} }, // free
  ]);
  expect(countActions(events)).toEqual({
    total: 12,
    workflowStarts: 1,
    activities: 3,
    localActivities: 2,
    signals: 2,
    updates: 1,
    timers: 1,
    upserts: 1,
    childStarts: 1,
    activityTypes: { modelTurn: 3 },
  });
});

test('one approval in a recorded run with the ledger: the decision, the upsert back to Running, the tool, a ledger write', () => {
  const file = join(__dirname, '../histories/ledger-decisions.json');
  const events = historyFromJSON(JSON.parse(readFileSync(file, 'utf8'))).events!;
  const run = countActions(events);
  expect(run).toMatchObject({ total: 18, workflowStarts: 1, localActivities: 1, updates: 3, upserts: 4 });
  expect(run.activityTypes).toEqual({ modelTurn: 2, runTool: 3, recordLedger: 4 });
  const first = approvalWindow(events, 'runTool', 5); // after the run's first update (the client's wait)
  expect(first.events).toHaveLength(12);
  expect(first.actions).toMatchObject({ total: 4, updates: 1, upserts: 1, activities: 2 });
  expect(first.actions.activityTypes).toEqual({ runTool: 1, recordLedger: 1 }); // a write scheduled before the window: named
  // The bare floor's approval: a signal, then the tool. The update stands for the signal (one action each).
  const floor = approvalWindow(
    history([
      { workflowExecutionSignaledEventAttributes: {} },
      ...task(),
      { activityTaskScheduledEventAttributes: { activityType: { name: 'runTool' } } },
      { activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 1 } },
      { activityTaskCompletedEventAttributes: { scheduledEventId: 5 } },
    ]),
    'runTool',
  ).actions;
  expect(floor.total).toBe(2);
  expect(actionsBeyond(first.actions, floor)).toEqual({
    signals: -1,
    updates: 1,
    upserts: 1,
    'activity recordLedger': 1,
  });
});

test('one approval in a recorded run whose ledger writes ride its activities (revision 5): the floor + 1', () => {
  const file = join(__dirname, '../histories/ledger-rides.json');
  const events = historyFromJSON(JSON.parse(readFileSync(file, 'utf8'))).events!;
  const run = countActions(events);
  expect(run).toMatchObject({ total: 18, workflowStarts: 1, localActivities: 1, signals: 2, upserts: 6 });
  // Three turns with a call each and a fourth that ends: only the two pauses' request records have an activity.
  expect(run.activityTypes).toEqual({ modelTurn: 4, runTool: 2, recordLedger: 2 });
  const first = approvalWindow(events, 'runTool');
  expect(first.events).toHaveLength(8);
  expect(first.actions).toMatchObject({ total: 3, signals: 1, upserts: 1, activities: 1 });
  expect(first.actions.activityTypes).toEqual({ runTool: 1 }); // the decided entry rode it
});

test('a history without a decision, or without the tool after it, is refused with one line', () => {
  expect(() => approvalWindow(history(task()), 'runTool')).toThrow(
    'no decision (signal or accepted update) in this history',
  );
  expect(() => approvalWindow(history([{ workflowExecutionSignaledEventAttributes: {} }]), 'runTool')).toThrow(
    'no runTool activity after the decision',
  );
});

test('a run and its continuation: each counted on its own (their event ids start again at 1), then summed', () => {
  const run = (tool: string) =>
    history([
      { workflowExecutionStartedEventAttributes: {} },
      { activityTaskScheduledEventAttributes: { activityType: { name: tool } } },
      { activityTaskStartedEventAttributes: { scheduledEventId: 2, attempt: 1 } },
    ]);
  const both = sumActions(countActions(run('model')), countActions(run('sendEmail')));
  expect(both).toMatchObject({ total: 4, workflowStarts: 2, activities: 2 });
  expect(both.activityTypes).toEqual({ model: 1, sendEmail: 1 });
});
