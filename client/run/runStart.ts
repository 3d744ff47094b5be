// Starting a run: the options a run takes, and what its start sends (its workflow id, the validated input, a one-line
// summary, its first search attributes); in a session, the id and history come from the session's newest run.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { type RunInput, runInputSchema } from '../../contract/messages';
import { HitlAgent, HitlStatus } from '../../contract/searchAttributes';
import { describeZodError } from '../../contract/zodErrors';
import { CountersignError } from '../errors';
import { SessionError } from '../sessions/sessionErrors';
import { nextSessionRun } from '../sessions/sessions';
import { refuseUnservedAgent } from './servedAgents';

/** Per-run approval policy (wins over the agent's and tools'), deadline and continue-as-new threshold. */
export interface RunOptions extends Pick<
  RunInput,
  | 'approvalTimeout'
  | 'onTimeout'
  | 'remindEvery'
  | 'escalateAfter'
  | 'escalateTo'
  | 'runTimeout'
  | 'continueAsNewAfterEvents'
  | 'modelTimeout'
  | 'toolTimeout'
  | 'modelSettings'
  | 'onMaxTurns'
  | 'conversation'
> {
  /** Default `<agent>-<uuid>`. */
  workflowId?: string;
  agentVersion?: string;
  /** Non-secret context for tools and predicates (stored in history). */
  context?: Record<string, unknown>;
  maxTurns?: number;
  /** Continue this session: the run is `session-<id>-<n>` and starts with the session's conversation (see sessions.ts). */
  session?: string;
  /** With `session`: carry the previous run's always-rules (for this agent) into this run. */
  sessionRules?: boolean;
}

/** What starting a run sends: its id (default `<agent>-<uuid>`), the validated input, a one-line summary. */
function startOptions(
  taskQueue: string,
  agent: string,
  input: string,
  options: Omit<RunOptions, 'session' | 'sessionRules'>,
  extra: Partial<RunInput> = {},
) {
  const { workflowId = `${agent}-${randomUUID()}`, ...rest } = options;
  const parsed = runInputSchema.safeParse({ agent, input, ...rest, ...extra });
  if (!parsed.success) throw new CountersignError(`invalid run: ${describeZodError(parsed.error)}`);
  const oneLine = input.replace(/\s+/g, ' ');
  const staticSummary = `${agent}: ${oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine}`;
  // The run's first search attributes go with the start (the run need not write them: one event less).
  const typedSearchAttributes = [
    { key: HitlStatus, value: 'Running' },
    { key: HitlAgent, value: agent },
  ] as SearchAttributePair[];
  return {
    workflowId,
    taskQueue,
    args: [parsed.data] as [RunInput],
    staticSummary,
    typedSearchAttributes,
  };
}

/** A run's start; in a session, its id and history come from the session's newest run (client/sessions/sessions.ts). */
export async function prepareStart(
  runner: { client: Client; taskQueue: string; sessionMaxItems: number },
  agent: string,
  input: string,
  { session, sessionRules, ...options }: RunOptions,
) {
  if (session === undefined && sessionRules)
    throw new SessionError("sessionRules carries the rules of a session's previous run: pass a session too");
  if (session === undefined) {
    const start = startOptions(runner.taskQueue, agent, input, options); // bad options first: no round trip for them
    await refuseUnservedAgent(runner.client, runner.taskQueue, agent); // no run left behind for a name no worker serves
    return { start };
  }
  if (options.workflowId)
    throw new SessionError(
      `a session run's workflow id is session-${session}-<n>: pass a session or a workflowId, not both`,
    );
  await refuseUnservedAgent(runner.client, runner.taskQueue, agent);
  const next = await nextSessionRun(runner.client, { session, agent, maxItems: runner.sessionMaxItems, sessionRules });
  // A closed run's id is taken too: of two concurrent starts of run N, the second fails (conflict policy FAIL covers a running one).
  return {
    start: {
      ...startOptions(runner.taskQueue, agent, input, { ...options, workflowId: next.workflowId }, next.input),
      workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    },
    session,
  };
}
