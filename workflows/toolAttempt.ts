// One tool call's attempt, as a run makes it: the runTool activity with the call's decided arguments, its timeout,
// the ledger write it carries and the tool-call metric; and how a failed attempt is read (may it have run?).
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  metricMeter,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { PlannedCall } from '../core/approvals/plannedCall';
import type { AgentRunState } from '../core/run/agentRunState';
import { METRIC_NAMES } from '../core/run/meteredEvents';
import { onceToolOptions, runTool, toolOptions, withAgent, withTimeout } from './activityProxies';
import type { RunParts } from './askPerson';
import type { LedgerWriter } from './ledgerWriter';
import { toolTimeoutOf } from './toolTimeouts';

/**
 * A turn's call that runs in a worker: its tool's activity. The outcome is read by one `.then` where an async frame
 * awaited it (with try/finally): the same microtask, one promise fewer; what throws before the activity starts
 * rejects, as the async frame did.
 */
export function runToolCall(
  s: AgentRunState,
  workflowId: string,
  parts: Pick<RunParts, 'publish'> & { ledger: LedgerWriter },
  call: PlannedCall,
  once = false,
): Promise<string> {
  let edited: string | undefined;
  let done: Promise<{ ok?: boolean; output: string; stale?: { was: string; now: string } }>;
  try {
    const options = withTimeout(toolOptions, toolTimeoutOf(s.agent, call.toolName) ?? s.input.toolTimeout);
    s.executionStarted();
    try {
      const booked = s.book.call(call.callId);
      edited = booked?.editedArguments;
      const fingerprint = booked?.fingerprint;
      // The tool-call metric (`ok` unless the tool or the activity failed; a cancelled run's call counts nothing).
      const agent = s.agentRef().name;
      const count = (result: 'ok' | 'error') => {
        if (workflowInfo().unsafe.isReplaying) return; // the meter would drop it: no counter, no tags
        metricMeter
          .createCounter(METRIC_NAMES.toolCalls, '1', 'tool calls run, by agent, tool and result')
          .add(1, { agent, tool: call.toolName, result });
      };
      // The attempt carries the run's ledger write (its decision), written before the tool runs (ledgerWriter.ts).
      done = withAgent(s, parts.publish, () =>
        parts.ledger.ride(
          (ledger) =>
            runTool.executeWithOptions({ ...(once ? onceToolOptions(options) : options), summary: call.toolName }, [
              {
                runId: workflowId,
                agent: s.agentRef(),
                callId: call.callId,
                toolName: call.toolName,
                arguments: edited ?? call.arguments,
                context: s.input.context ?? {},
                ...s.mcpTool(call.toolName),
                ...(fingerprint !== undefined ? { fingerprint } : {}),
                ...(ledger ? { ledger } : {}),
              },
            ]),
          (result) => result.ledgerWrite !== undefined,
        ),
      ).then(
        (result) => {
          count(result.ok === false ? 'error' : 'ok');
          return result;
        },
        (err: unknown) => {
          if (!isCancellation(err)) count('error');
          throw err;
        },
      );
    } catch (err) {
      s.executionEnded();
      throw err;
    }
  } catch (err) {
    return Promise.reject(err);
  }
  return done.then(
    (result) => {
      s.executionEnded();
      if (result.stale) throw new TargetChanged(result.stale);
      // The model asked for other arguments; it must know what actually ran.
      if (!edited) return result.output;
      const note =
        call.disposition === 'input'
          ? `A person filled in ${call.fields.join(', ')}; the call ran with ${edited}.`
          : `A reviewer changed the arguments of this call before it ran; it ran with ${edited}.`;
      return `${note}\n${result.output}`;
    },
    (err: unknown) => {
      s.executionEnded();
      throw err;
    },
  );
}

/** The tool activity found the call's target changed since its decision, and did not run it. */
export class TargetChanged extends Error {
  constructor(readonly stale: { was: string; now: string }) {
    super("the call's target changed since its decision");
  }
}

/** Why a failed attempt may have run (it timed out or failed once started); undefined when it surely did not, or the run is being cancelled. */
export function mayHaveRun(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  const cause = err.cause;
  if (
    cause instanceof ApplicationFailure &&
    (cause.type === Failure.ToolUnavailable ||
      cause.type === Failure.AgentUnavailable ||
      cause.type === Failure.ToolOutputGuardrailTripwireTriggered) // it ran; the run fails
  )
    return undefined;
  if (cause instanceof TimeoutFailure)
    return `its attempt timed out (${cause.timeoutType === 'HEARTBEAT' ? 'its worker stopped answering' : 'it did not finish in time'}) after it started`;
  return `its attempt failed after it started: ${cause?.message ?? err.message}`;
}
