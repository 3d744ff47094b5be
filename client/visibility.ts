// Reading many runs through Temporal visibility: values that go into a visibility query must be plain names (so no
// quote can end a string early), and the runs found are then asked a few at a time (enough to hide latency, few
// enough not to crowd the workers that answer), each reader taking the next run as soon as it is free.
import { CountersignError } from './errors';

/** Agent and tool names as visibility queries may hold them. */
export const QUERY_NAME = /^[\w.@-]+$/;
/** A task queue in a visibility query: also ':' and '/', still no quote that could end the query's string early. */
export const QUEUE_NAME = /^[\w.@:/-]+$/;

/** One line for the first value that is not plain; nothing for absent values. */
export function checkQueryValues(
  values: ReadonlyArray<readonly [what: string, value: string | undefined, shape: RegExp]>,
): void {
  for (const [what, value, shape] of values)
    if (value !== undefined && !shape.test(value))
      throw new CountersignError(
        `${what} must be a plain name (letters, digits, _ . @ -), got ${JSON.stringify(value)}`,
      );
}

/** `fn` for every item, at most `limit` at once. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, reader));
}
