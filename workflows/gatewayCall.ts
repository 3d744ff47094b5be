// countersignGatewayCall: one gated MCP call (`countersign gateway`) as one durable run. It books the call in the
// same approval book an agent's run has (askPerson.ts), answers the same signals, update and queries
// (runHandlers.ts), and, once approved, sends it to its upstream in one activity with one attempt: an attempt that
// may have acted makes the call `uncertain` and a person decides again, as for any tool that is not idempotent.
// Rejected or expired: the upstream is never called. Cancelled (the client withdrew it): audited cancelled.
// An ask-only call (a hook's, the approvals API's; change callOutcomes) answers as soon as it is decided (a query and
// an update read it) and, approved, stays open up to OUTCOME_WINDOW for what its caller did: audited `outcome`.
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type GatewayAnswer,
  OUTCOME_WINDOW,
  awaitAnswerUpdate,
  callOutcomeSchema,
  callOutcomeUpdate,
  gatewayAnswerQuery,
} from '../contract/gatewayMessages';
import { AgentRunState } from '../core/run/agentRunState';
import { Failure } from '../contract/failureTypes';
import type { RunInput } from '../contract/messages';
import { type WaitingCall, bookingFor } from '../core/approvals/plannedCall';
import { callContext } from '../core/approvals/callContext';
import { rootCause } from '../core/run/failures';
import { RESULT_WINDOW } from '../core/run/logPages';
import { snapshotOf } from '../core/run/stateViews';
import type { RunResult } from '../contract/runViews';
import {
  ASK_ONLY_SERVER,
  GATEWAY_CALL_ID,
  type GatewayCallInput,
  type GatewayCallResult,
  type GatewayRunResult,
  type GatewayToolResult,
} from '../core/run/gatewayRuns';
import type { GatewayActivities } from '../activities/gatewayTool';
import { describeAgent, onceToolOptions, toolOptions } from './activityProxies';
import { AskPerson, type Decided } from './askPerson';
import { DecisionDesk } from './decisionDesk';
import { LedgerWriter } from './ledgerWriter';
import { Notifier } from './notifier';
import { Publisher } from './publisher';
import { setRunHandlers } from './runHandlers';
import { SubRuns } from './subRuns';
import { mayHaveRun } from './toolAttempt';
import { PATCHES } from './patches';

const isoNow = () => new Date(Date.now()).toISOString();

/** The text a person's answer gives the client, and what the run's view shows as its output. */
function resultText(result: GatewayToolResult): string {
  const texts = result.content.flatMap((c) =>
    typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text'
      ? [String((c as { text?: unknown }).text)]
      : [],
  );
  return texts.join('\n') || JSON.stringify(result.content);
}

export async function countersignGatewayCall(input: GatewayCallInput): Promise<GatewayRunResult> {
  const workflowId = workflowInfo().workflowId;
  // The request a reviewer reads: the tool and its arguments, as the client sent them (data, no command).
  const runInput: RunInput = {
    agent: input.gateway,
    input: `${input.tool.name} ${input.arguments}`,
    context: { requestedBy: input.requester, mcpServer: input.server },
  };
  const state = new AgentRunState(runInput, isoNow());
  const notifier = new Notifier(workflowId, () => state.agent?.webhook);
  const ledger = new LedgerWriter(state);
  const publisher = new Publisher(state, notifier, ledger);
  const publish = () => publisher.publish();
  const subRuns = new SubRuns(state, workflowId, publisher, isoNow);
  setRunHandlers(state, new DecisionDesk(state, publisher, subRuns, isoNow, workflowId), subRuns);
  const ask = new AskPerson(state, notifier, publish, isoNow);
  const { callGatewayTool } = proxyActivities<GatewayActivities>({
    ...onceToolOptions(toolOptions),
    taskQueue: input.taskQueue,
  });
  const outcomes = input.server === ASK_ONLY_SERVER && patched(PATCHES.callOutcomes);
  let answered: GatewayAnswer | undefined;
  let failed: ApplicationFailure | undefined;
  let reported = false;
  let closed = false; // the window for the outcome ran out: what comes later is refused, not lost after the ledger closed
  if (outcomes) {
    state.book.namesRequester(input.requester);
    setHandler(gatewayAnswerQuery, () => answered ?? null);
    setHandler(awaitAnswerUpdate, async () => {
      await condition(() => answered !== undefined || failed !== undefined);
      if (failed) throw failed;
      return answered!;
    });
    setHandler(
      callOutcomeUpdate,
      ({ outcome }) => {
        reported = true;
        if (!outcome) return { recorded: false };
        state.book.recordOutcome(GATEWAY_CALL_ID, outcome, isoNow());
        publish();
        return { recorded: true };
      },
      { validator: (request) => outcomeRefusal(answered, reported, closed, request) },
    );
  }
  // Decided, the call goes upstream (or is answered) in this activation; the run's end writes the decision (hold).
  // An ask-only call that stays open for its caller's outcome does not end soon: its decision is written at once.
  ledger.expect(() => {
    const booked = state.book.call(GATEWAY_CALL_ID);
    return !outcomes && booked !== undefined && booked.state !== 'pending' && state.executing === 0 && !state.finished;
  });
  const call: WaitingCall = {
    callId: GATEWAY_CALL_ID,
    toolName: input.tool.name,
    arguments: input.arguments,
    disposition: 'approval',
    rejectionText: input.rejectionText,
    wait: input.wait,
    idempotent: false,
  };

  /** Sends the approved call upstream; an attempt that may have acted puts it before a person again. */
  async function run(): Promise<GatewayCallResult> {
    state.executionStarted();
    publish();
    try {
      // The upstream call's activity is given no ledger store: what the decision wrote waits for the run's end (hold).
      const result = await ledger.hold(
        callGatewayTool({
          server: input.server,
          tool: input.upstreamTool,
          arguments: JSON.parse(state.book.call(GATEWAY_CALL_ID)?.editedArguments ?? input.arguments) as Record<
            string,
            unknown
          >,
          idempotencyKey: `${workflowId}:${GATEWAY_CALL_ID}`,
        }),
      );
      state.answerCall(GATEWAY_CALL_ID, resultText(result));
      state.complete(resultText(result));
      return { outcome: 'ran', result };
    } catch (err) {
      const because = mayHaveRun(err);
      if (because === undefined) throw err;
      const c = state.book.markUncertain(
        { ...call, ...callContext(runInput.input, state.items, GATEWAY_CALL_ID) },
        input.gateway,
        because,
        isoNow(),
      );
      return answer(await ask.again(c, { kind: 'uncertain', uncertainBecause: c.uncertainBecause }));
    } finally {
      state.executionEnded();
    }
  }

  function answer(decided: Decided): Promise<GatewayCallResult> | GatewayCallResult {
    if (decided.state === 'approved') return run();
    const text = decided.state === 'resolved' ? decided.externalOutput! : decided.rejectionOutput!;
    state.answerCall(GATEWAY_CALL_ID, text);
    state.complete(text);
    return { outcome: decided.state === 'resolved' ? 'resolved' : 'rejected', text };
  }

  const scope = new CancellationScope();
  let result: GatewayCallResult;
  try {
    result = await scope.run(async () => {
      const described = await describeAgent({ name: input.gateway });
      state.described({ ...described, tools: [input.tool] });
      state.startTurn();
      state.startTurnCalls([call]);
      const booking = bookingFor(call, { agentName: input.gateway, mcpServer: input.server }, isoNow());
      return answer(
        await ask.ask({ booking: { ...booking, ...callContext(runInput.input, state.items, GATEWAY_CALL_ID) } }),
      );
    });
  } catch (err) {
    const cancelled = isCancellation(err);
    const cause = rootCause(err);
    failed = ApplicationFailure.create({ message: cause.message, type: cause.type, nonRetryable: true });
    // Nothing left dangling: a call still waiting is audited cancelled and leaves the pending list.
    state.fail(
      isoNow(),
      cancelled ? 'the call was withdrawn' : cause.message,
      cancelled ? Failure.RunCancelled : cause.type,
    );
    publish();
    publisher.settle();
    await CancellationScope.nonCancellable(async () => {
      await notifier.settled();
      if (ledger.on) await ledger.close();
    });
    if (cancelled) throw err;
    await condition(allHandlersFinished);
    throw failed;
  }
  if (outcomes) {
    answered = { answeredAt: isoNow(), result: { ...snapshotOf(state, RESULT_WINDOW), gatewayCall: result } };
    publish();
    if (result.outcome === 'ran') await condition(() => reported, OUTCOME_WINDOW);
    closed = true;
  }
  publish();
  publisher.settle();
  await notifier.settled();
  if (ledger.on) await ledger.close();
  await condition(allHandlersFinished);
  return { ...(snapshotOf(state, RESULT_WINDOW) as RunResult), gatewayCall: result };
}

/** Why the caller's outcome cannot be taken now: one line, and the run changes nothing. */
function outcomeRefusal(
  answered: GatewayAnswer | undefined,
  reported: boolean,
  closed: boolean,
  request: unknown,
): void {
  const refuse = (why: string) => {
    throw ApplicationFailure.create({ message: why, type: Failure.DecisionRejected, nonRetryable: true });
  };
  const outcome = (request as { outcome?: unknown } | null)?.outcome;
  const parsed = outcome === undefined ? undefined : callOutcomeSchema.safeParse(outcome);
  if (parsed && !parsed.success) {
    const issue = parsed.error.issues[0]!;
    refuse(`outcome${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`);
  }
  if (!answered) refuse('the call is not decided yet: report its outcome once it was approved and ran');
  if ((answered!.result as GatewayRunResult).gatewayCall.outcome !== 'ran')
    refuse('the call was not approved: it has no outcome to report');
  if (reported) refuse('its outcome is already recorded');
  if (closed) refuse(`its outcome came too late: it is taken up to ${OUTCOME_WINDOW} after the answer`);
}
