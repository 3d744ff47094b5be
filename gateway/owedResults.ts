// A call without a task that outlived --wait was told to call again with the same arguments for its result. Its run
// often ends before that call comes (a person decides in minutes): the next identical call then gets that run's
// result, once, instead of starting a new run that asks a person again. Kept in this gateway process and bounded;
// after a restart the next identical call starts a new run (a task-augmented call keeps its task id instead).
import type { CallRun } from './gatedCalls';

/** Runs this gateway still owes a result to their caller, by workflow id (the principal, tool and arguments' digest). */
export class OwedResults {
  private readonly owed = new Map<string, string>();

  constructor(private readonly max = 1_000) {}

  /** The caller of `run` was told to call again. */
  owe(run: CallRun): void {
    this.owed.delete(run.workflowId); // the newest last: the oldest is what a full map forgets
    this.owed.set(run.workflowId, run.runId);
    if (this.owed.size > this.max) this.owed.delete(this.owed.keys().next().value!);
  }

  /** The run owed for this workflow id, if any; taken, so it answers one call. */
  take(workflowId: string): CallRun | undefined {
    const runId = this.owed.get(workflowId);
    if (runId === undefined) return undefined;
    this.owed.delete(workflowId);
    return { workflowId, runId };
  }

  get size(): number {
    return this.owed.size;
  }
}
