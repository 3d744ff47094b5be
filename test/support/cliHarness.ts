// For suites that drive runs with the `countersign` and raw `temporal` CLIs as a person or an admin script would: a
// harness whose worker serves the suite's agents, and the two CLIs pointed at it (the shared test server, the
// harness's task queue, no profile of the machine's, plain output).
import type { AgentRegistry } from '../../agents/registry';
import type { PendingApproval } from '../../contract/runViews';
import { cliEnv, countersignExit, temporalCli } from './countersignCli';
import { startHarness, type Harness } from './harness';

export interface CliHarness {
  /** The harness, once beforeAll has started it. */
  harness(): Harness;
  /** `countersign <args>` whatever its exit: the code with both outputs. */
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** `temporal <args>`: its output. */
  temporal(...args: string[]): Promise<string>;
  /** A run's pending calls, as `countersign show --json` gives them. */
  pendingOf(workflowId: string): Promise<PendingApproval[]>;
}

/** Registers beforeAll / afterAll that start and close a harness serving `registry`. */
export function useCliHarness(registry: AgentRegistry): CliHarness {
  let h: Harness | undefined;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    h = await startHarness({ registry });
    env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
  });
  afterAll(async () => h?.close());
  const cli = (...args: string[]) => countersignExit(args, env);
  return {
    harness: () => h!,
    cli,
    temporal: (...args) => temporalCli(args, env),
    pendingOf: async (workflowId) =>
      JSON.parse((await cli('show', workflowId, '--json')).stdout).pending as PendingApproval[],
  };
}
