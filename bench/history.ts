// Reading timings and counts out of a workflow's history (server-side timestamps, so client latency is excluded).
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export type Event = {
  eventId?: unknown;
  eventTime?: { seconds?: unknown; nanos?: number | null } | null;
  workflowExecutionSignaledEventAttributes?: unknown;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskStartedEventAttributes?: { scheduledEventId?: unknown } | null;
};

/** History numbers arrive as protobuf Longs: go through their string form. */
export const num = (x: unknown) => Number(String(x));
export const eventMs = (e: Event) => num(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
export const p50p99 = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });

const firstSignal = (events: Event[]) => events.find((e) => e.workflowExecutionSignaledEventAttributes)!;
const scheduledAfter = (events: Event[], after: Event, type: string) =>
  events.find(
    (e) => num(e.eventId) > num(after.eventId) && e.activityTaskScheduledEventAttributes?.activityType?.name === type,
  )!;

/** Time from the (first) signal to the start of the first activity of `type` scheduled after it. */
export function sinceSignal(events: Event[], type: string): number {
  const signal = firstSignal(events);
  const scheduled = scheduledAfter(events, signal, type);
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId),
  )!;
  return eventMs(started) - eventMs(signal);
}

/** Events from the decision (signal) to the approved tool's completion, inclusive: what one approval costs. */
export function cycleEvents(events: Event[], type: string): number {
  const signal = firstSignal(events);
  const scheduled = scheduledAfter(events, signal, type);
  const completed = events.find(
    (e) => e.activityTaskCompletedEventAttributes && num(e.eventId) > num(scheduled.eventId),
  )!;
  return num(completed.eventId) - num(signal.eventId) + 1;
}

export interface HistoryFigures {
  /** Runs of the workflow id: the first and one per continue-as-new. */
  runs: number;
  events: number;
  /** History as the server keeps it (protobuf-encoded), summed over the runs. */
  bytes: number;
  /** The largest payload `data` in any event of any run: what an offloaded payload leaves is a reference. */
  largestPayload: number;
  /** The largest input of a `modelTurn` activity. */
  largestModelInput: number;
}

/** Every run of a workflow id, newest first (each run's start names the run it continues): their totals and largest payloads. */
export async function historyFigures(client: Client, workflowId: string): Promise<HistoryFigures> {
  const figures = { runs: 0, events: 0, bytes: 0, largestPayload: 0, largestModelInput: 0 };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
      const p = v as { data?: unknown; metadata?: unknown };
      if (p.metadata && p.data instanceof Uint8Array)
        figures.largestPayload = Math.max(figures.largestPayload, p.data.length);
      Object.values(v).forEach(walk);
    }
  };
  let runId: string | undefined;
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    figures.runs += 1;
    figures.events += events.length;
    figures.bytes += temporal.api.history.v1.History.encode(history).finish().length;
    walk(events);
    for (const e of events) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name === 'modelTurn')
        figures.largestModelInput = Math.max(
          figures.largestModelInput,
          ...(a.input?.payloads ?? []).map((p) => p.data?.length ?? 0),
        );
    }
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return figures;
}
