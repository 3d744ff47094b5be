// The demo tools' side effects: one JSON line per effect, keyed by the call's idempotency key, so a retried or
// replayed call finds its earlier line instead of writing a second one (exactly-once, checkable from the file).
import { appendFile, mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setting } from '../../temporal.config';

export interface OutboxEntry {
  idempotencyKey: string;
  kind: string;
  at: string;
  [field: string]: unknown;
}

let queue: Promise<unknown> = Promise.resolve();

let configured: string | undefined;

/** Where the demo tools write from now on: the worker's COUNTERSIGN_DEMO_OUTBOX (createWorker's `demoOutbox`). */
export function useDemoOutbox(path: string): void {
  configured = path;
}

/** The outbox a worker configured, else COUNTERSIGN_DEMO_OUTBOX (a tool called outside any worker of this process). */
export function outboxPath(): string {
  return configured ?? setting('COUNTERSIGN_DEMO_OUTBOX');
}

export async function readOutbox(path = outboxPath()): Promise<OutboxEntry[]> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? '' : Promise.reject(err),
  );
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OutboxEntry);
}

/**
 * The keys already in the file. Only the bytes appended since the last look are read (other worker processes may
 * have appended), so a long outbox costs nothing per call; a replaced or truncated file is read afresh.
 */
const known = new Map<string, { inode: number; offset: number; keys: Set<string> }>();

async function keysIn(path: string): Promise<Set<string>> {
  const file = await open(path, 'r').catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? undefined : Promise.reject(err),
  );
  if (!file) {
    known.delete(path);
    return new Set();
  }
  try {
    const { ino, size } = await file.stat();
    let state = known.get(path);
    if (!state || state.inode !== ino || size < state.offset)
      known.set(path, (state = { inode: ino, offset: 0, keys: new Set() }));
    if (size > state.offset) {
      const { buffer, bytesRead } = await file.read({
        buffer: Buffer.alloc(size - state.offset),
        position: state.offset,
      });
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const complete = text.slice(0, text.lastIndexOf('\n') + 1); // a line still being written is read next time
      for (const line of complete.split('\n').filter(Boolean))
        state.keys.add((JSON.parse(line) as OutboxEntry).idempotencyKey);
      state.offset += Buffer.byteLength(complete);
    }
    return state.keys;
  } finally {
    await file.close();
  }
}

/** Appends the entry unless one with the same key exists; returns whether it wrote. Serialised per process. */
export function recordOnce(entry: Omit<OutboxEntry, 'at'>, path = outboxPath()): Promise<boolean> {
  const run = queue.then(async () => {
    if ((await keysIn(path)).has(String(entry.idempotencyKey))) return false;
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, JSON.stringify({ ...entry, at: new Date().toISOString() }) + '\n');
    return true;
  });
  queue = run.catch(() => undefined);
  return run;
}
