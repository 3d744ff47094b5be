// Small helpers shared by the integration tests.
import { randomUUID } from 'node:crypto';
import type { Connection, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { readOutbox } from '../../agents/demo/outbox';
import { RUN_SEARCH_ATTRIBUTES } from '../../contract/searchAttributes';

export const newId = (prefix: string) => `${prefix}-${randomUUID()}`;

/** Polls until `check` returns a value other than undefined (bounded). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
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
  return (events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : [],
  );
}

/**
 * Everything a run's history says, with each payload's bytes decoded from base64, so that plaintext in any
 * payload would show up in a search (a plain JSON dump only shows base64 and hides it).
 */
export async function historyText(handle: WorkflowHandle): Promise<string> {
  const raw = JSON.parse(JSON.stringify(await handle.fetchHistory())) as unknown;
  const parts: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string')
      parts.push(v, key === 'data' || /^[A-Za-z0-9+/]+=*$/.test(v) ? Buffer.from(v, 'base64').toString('latin1') : '');
    else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(raw);
  return parts.join('\n');
}

/** Registers the runs' search attributes in a namespace, as an operator does on a cluster (`npm start`'s dev server has them). */
export async function addRunSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<void> {
  const indexed = (type: string) =>
    temporal.api.enums.v1.IndexedValueType[
      `INDEXED_VALUE_TYPE_${type}` as keyof typeof temporal.api.enums.v1.IndexedValueType
    ];
  const searchAttributes = Object.fromEntries(RUN_SEARCH_ATTRIBUTES.map((k) => [k.name, indexed(k.type)]));
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
}
