// The demo tools' side effects: one JSON line per effect, keyed by the call's idempotency key, so a retried or
// replayed call finds its earlier line instead of writing a second one (exactly-once, checkable from the file).
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface OutboxEntry {
  idempotencyKey: string;
  kind: string;
  at: string;
  [field: string]: unknown;
}

let queue: Promise<unknown> = Promise.resolve();

export function outboxPath(): string {
  return process.env.COUNTERSIGN_DEMO_OUTBOX || '.countersign/outbox.jsonl';
}

export async function readOutbox(path = outboxPath()): Promise<OutboxEntry[]> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? '' : Promise.reject(err)));
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as OutboxEntry);
}

/** Appends the entry unless one with the same key exists; returns whether it wrote. Serialised per process. */
export function recordOnce(entry: Omit<OutboxEntry, 'at'>, path = outboxPath()): Promise<boolean> {
  const run = queue.then(async () => {
    const existing = await readOutbox(path);
    if (existing.some((e) => e.idempotencyKey === entry.idempotencyKey)) return false;
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, JSON.stringify({ ...entry, at: new Date().toISOString() }) + '\n');
    return true;
  });
  queue = run.catch(() => undefined);
  return run;
}
