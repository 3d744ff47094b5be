// What `runner.run` returns: where a run stands, paused with interruptions or finished with a final output; the
// state to decide on and pass back; the final output read as a type.
import type { z } from 'zod';
import type { RunView } from '../../contract/runViews';
import { readFinalOutput } from './typedOutput';
import { type Interruption, interruptionOf } from './interruption';
import { RunState } from './runState';

/** Where a run stands when `run` returns: paused with interruptions, or finished with a final output. */
export class AgentRunResult {
  constructor(
    readonly workflowId: string,
    /** The run's compact view (status, pending calls, final output or error, usage, cursors). */
    readonly snapshot: RunView,
  ) {}
  get status() {
    return this.snapshot.status;
  }
  get interruptions(): Interruption[] {
    return this.snapshot.pending.map(interruptionOf);
  }
  get finalOutput(): string | undefined {
    return this.snapshot.finalOutput;
  }
  /**
   * The final output read as `schema` (the Agents SDK's final_output_as): for an agent with an outputType, pass the same
   * zod schema and get the typed value. Throws OutputTypeError, in one line, when there is no final output yet or
   * it does not match.
   */
  finalOutputAs<T>(schema: z.ZodType<T>): T {
    return readFinalOutput(this.workflowId, this.snapshot.finalOutput, schema);
  }
  /** A serialisable state to decide on and pass back to `runner.run`. */
  toState(): RunState {
    return RunState.fromSnapshot(this.workflowId, this.snapshot);
  }
}
