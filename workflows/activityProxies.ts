// The workflow's side of its activities: proxies with their timeouts and retries, and the one wrapper every call
// that needs the run's agent version goes through (while no worker has that version, the run waits and says so).
import { type ActivityOptions, log, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { Duration } from '@temporalio/common';
import type { AgentActivities } from '../activities/agentActivities';
import type { AgentRunState } from '../core/run/agentRunState';
import { rootCause } from '../core/run/failures';
import { hasChange } from './patches';

/** While no worker has the run's agent version: wait this long, doubling up to the maximum, and try again. */
const AGENT_WAIT_INITIAL_MS = 2_000;
const AGENT_WAIT_MAX_MS = 5 * 60_000;

export const modelOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
};
export const toolOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};
/** A tool that is not idempotent: one attempt, and a worker that dies under it is noticed within the heartbeat timeout. */
export const onceToolOptions = (options: ActivityOptions): ActivityOptions => ({
  ...options,
  heartbeatTimeout: '20 seconds',
  retry: { ...options.retry, maximumAttempts: 1 },
});
export const notifyOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
};

export const { modelTurn, runTool, notify } = proxyActivities<AgentActivities>(modelOptions);
/**
 * Approvals-ledger writes (workflows/ledgerWriter.ts): retried until the store takes them, however long it is down
 * (no attempt limit; the backoff is capped at a minute so it catches up soon after). Each attempt is short: a write
 * takes milliseconds, and a worker killed under one is noticed after 15 seconds (SQLite's busy wait is 10).
 */
export const ledgerOptions: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
export const { recordLedger } = proxyActivities<AgentActivities>(ledgerOptions);
/** Whether the worker keeps a ledger, for the reviews workflow (it has no agent snapshot that says so). */
export const { ledgerKept } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});
/** A handoff's onHandoff and function input filter: user code, retried like a tool. */
export const { handoffStarted } = proxyActivities<AgentActivities>(toolOptions);
/** An agent's input and output guardrails (workflows/guardrailGate.ts): user code, three attempts within a minute each. */
export const { runGuardrails } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});
/** Fast mode's model call: a local activity (same timeouts and retries; no task-queue round trip, one marker). */
export const { modelTurn: localModelTurn } = proxyLocalActivities<AgentActivities>(modelOptions);
export const { describeAgent, validateArguments, verifyDecisionTokens, verifyGrantToken } =
  proxyLocalActivities<AgentActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** The run's own limits on one model call and one tool execution, where it sets them. */
export const withTimeout = (options: ActivityOptions, timeout: string | undefined): ActivityOptions =>
  timeout ? { ...options, startToCloseTimeout: timeout as Duration } : options;

/**
 * Runs an activity that needs the run's agent version; while no worker has it, the run waits and says so. Runs with
 * change leanPromises: the activity's own `.then`, one promise, where an async frame and its await made two (the
 * result arrives in the same microtask either way).
 */
export function withAgent<T>(
  state: AgentRunState,
  publish: () => void,
  fn: () => Promise<T>,
  wait = AGENT_WAIT_INITIAL_MS,
): Promise<T> {
  if (!hasChange(state.agent, 'leanPromises')) return withAgentAwaited(state, publish, fn);
  return fn().then(
    (result) => {
      if (state.setProblem(undefined)) publish();
      return result;
    },
    (err: unknown) => {
      waitingForAgent(err, state, publish, wait);
      return sleep(wait).then(() => withAgent(state, publish, fn, Math.min(wait * 2, AGENT_WAIT_MAX_MS)));
    },
  );
}

/** withAgent as runs before change leanPromises take it (and replay so). */
async function withAgentAwaited<T>(state: AgentRunState, publish: () => void, fn: () => Promise<T>): Promise<T> {
  let wait = AGENT_WAIT_INITIAL_MS;
  for (;;) {
    try {
      const result = await fn();
      if (state.setProblem(undefined)) publish();
      return result;
    } catch (err) {
      waitingForAgent(err, state, publish, wait);
      await sleep(wait);
      wait = Math.min(wait * 2, AGENT_WAIT_MAX_MS);
    }
  }
}

/** Rethrows `err` unless no worker has the run's agent version; then the run says it waits `wait` ms for one. */
function waitingForAgent(err: unknown, state: AgentRunState, publish: () => void, wait: number): void {
  const cause = rootCause(err);
  if (cause.type !== Failure.AgentUnavailable) throw err;
  state.setProblem(`${cause.message}; waiting for a worker that has it (next try in ${wait / 1000}s)`);
  log.warn('agent version unavailable; run waits', { problem: state.problem });
  publish();
}
