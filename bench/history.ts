// Reading timings and counts out of a workflow's history (server-side timestamps, so client latency is excluded).
export type Event = {
  eventId?: unknown;
  eventTime?: { seconds?: unknown; nanos?: number | null } | null;
  workflowExecutionSignaledEventAttributes?: unknown;
  activityTaskCompletedEventAttributes?: unknown;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskStartedEventAttributes?: { scheduledEventId?: unknown } | null;
};

/** History numbers arrive as protobuf Longs: go through their string form. */
export const num = (x: unknown) => Number(String(x));
export const eventMs = (e: Event) => num(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
export const p50p99 = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });

const firstSignal = (events: Event[]) => events.find((e) => e.workflowExecutionSignaledEventAttributes)!;
const scheduledAfter = (events: Event[], after: Event, type: string) => events.find((e) => num(e.eventId) > num(after.eventId) && e.activityTaskScheduledEventAttributes?.activityType?.name === type)!;

/** Time from the (first) signal to the start of the first activity of `type` scheduled after it. */
export function sinceSignal(events: Event[], type: string): number {
  const signal = firstSignal(events);
  const scheduled = scheduledAfter(events, signal, type);
  const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId))!;
  return eventMs(started) - eventMs(signal);
}

/** Events from the decision (signal) to the approved tool's completion, inclusive: what one approval costs. */
export function cycleEvents(events: Event[], type: string): number {
  const signal = firstSignal(events);
  const scheduled = scheduledAfter(events, signal, type);
  const completed = events.find((e) => e.activityTaskCompletedEventAttributes && num(e.eventId) > num(scheduled.eventId))!;
  return num(completed.eventId) - num(signal.eventId) + 1;
}
