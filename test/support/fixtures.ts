// Small helpers shared by the integration tests.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { readOutbox } from '../../agents/demo/outbox';

export const newId = (prefix: string) => `${prefix}-${randomUUID()}`;

/** Polls until `check` returns a value other than undefined (bounded). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const outboxOf = (path: string) => readOutbox(path);

/** Activity types scheduled in a run's history, in order. */
export async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
}
