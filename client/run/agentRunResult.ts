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
  /** A serialisable state to decide on and pass back to `runner.run`: a new one at every call. */
  toState(): RunState {
    return RunState.fromSnapshot(this.workflowId, this.snapshot);
  }
  /**
   * The Agents SDK's `result.state`: the state toState() makes, made when first read and the same object at every
   * read after, so `result.state.approve(i)` then `runner.run(agent, result.state)` sends the decision.
   */
  get state(): RunState {
    return (this.#state ??= this.toState());
  }
  #state: RunState | undefined;
}
