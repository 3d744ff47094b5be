// Tasks a gateway process keeps in its memory (calls no person decided: doneTasks.ts, forwardedTasks.ts): each its
// principal's only, kept until it expires, at most MAX_KEPT_TASKS, the oldest forgotten first. Their ids carry a
// prefix of their own, so the task store tells them from a gated call's run without asking Temporal.
import { randomUUID } from 'node:crypto';

export const MAX_KEPT_TASKS = 1_000;

interface Kept<T> {
  principal: string;
  value: T;
  expires: number;
}

export class KeptTasks<T> {
  private readonly kept = new Map<string, Kept<T>>(); // in the order they were made

  constructor(private readonly prefix: string) {}

  /** Whether the id is one of these, whoever's it is. */
  names(taskId: string): boolean {
    return taskId.startsWith(this.prefix);
  }

  /** Keeps what `make` makes of a new id, for the principal, until `expires`; what was made. */
  keep(principal: string, make: (taskId: string) => T, expires: number, now = Date.now()): T {
    this.forget(now);
    const taskId = `${this.prefix}${randomUUID()}`;
    const value = make(taskId);
    this.kept.set(taskId, { principal, value, expires });
    while (this.kept.size > MAX_KEPT_TASKS) this.kept.delete(this.kept.keys().next().value!);
    return value;
  }

  /** The principal's task of this id, while it is kept. */
  get(principal: string, taskId: string, now = Date.now()): T | undefined {
    if (!this.names(taskId)) return undefined;
    this.forget(now);
    const kept = this.kept.get(taskId);
    return kept?.principal === principal ? kept.value : undefined;
  }

  /** The principal's tasks as [id, task], newest first. */
  list(principal: string, now = Date.now()): Array<[string, T]> {
    this.forget(now);
    return [...this.kept]
      .filter(([, k]) => k.principal === principal)
      .map(([id, k]): [string, T] => [id, k.value])
      .reverse();
  }

  private forget(now: number): void {
    for (const [id, kept] of this.kept) if (kept.expires <= now) this.kept.delete(id);
  }
}
