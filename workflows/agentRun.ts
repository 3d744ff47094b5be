// agentRun: one agent conversation as one durable workflow. It reads top-down:
//   input → state (core/run/agentRunState.ts) → handlers (one line each) → the turn loop:
//   model turn (activity) → the turn's tool calls answered (turnCalls.ts: run at once, or wait for a person on
//   durable timers, approvalTimers.ts) → next model turn … → final output (no tool calls), MaxTurnsExceeded,
//   ApprovalTimedOut (onTimeout 'fail') or RunTimedOut.
// Decisions arrive as signals or the validating `decide` update and pass one intake (decisions.ts). Long runs
// continue as new with their state, when nothing executes and no handler is running.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { AgentRunState, RESULT_WINDOW, type RunCarry } from '../core/run/agentRunState';
import { addDuration } from '../contract/approvalPolicy';
import { rootCause } from '../core/run/failures';
import { type ConversationItem, addUsage } from '../contract/items';
import { overInlineLimit } from '../core/run/payloadBudget';
import type { PlannedCall } from '../core/approvals/plannedCall';
import { mergeModelSettings } from '../contract/modelSettings';
import { OUTPUT_TRIES, outputRetryText } from '../core/run/outputType';
import { describeAgent, localModelTurn, modelOptions, modelTurn, withAgent, withTimeout } from './activityProxies';
import { ApprovalTimers } from './approvalTimers';
import { DecisionDesk } from './decisionDesk';
import {
  type RunInput,
  type RunResult,
  addInputSignal,
  approveSignal,
  auditLogQuery,
  childStateSignal,
  conversationQuery,
  decideUpdate,
  describeZodError,
  eventsQuery,
  extendSignal,
  nextPauseUpdate,
  pendingApprovalsQuery,
  provideInputSignal,
  provideResultSignal,
  rejectSignal,
  runInputSchema,
  runStateQuery,
} from '../contract/messages';
import { Notifier } from './notifier';
import { Publisher } from './publisher';
import { SubRuns } from './subRuns';
import { TurnCalls } from './turnCalls';

export type { RunCarry } from '../core/run/agentRunState';

const isoNow = () => new Date(Date.now()).toISOString();

export async function agentRun(rawInput: RunInput, carry?: RunCarry): Promise<RunResult> {
  const parsedInput = runInputSchema.safeParse(rawInput);
  if (!parsedInput.success) throw ApplicationFailure.nonRetryable(`invalid run input: ${describeZodError(parsedInput.error)}`, 'InvalidRunInput');
  const input = parsedInput.data;
  const workflowId = workflowInfo().workflowId;

  const state = new AgentRunState(input, isoNow(), carry);
  const notifier = new Notifier(workflowId, () => state.agent?.webhook);
  const publisher = new Publisher(state, notifier);
  const publish = () => publisher.publish();
  const subRuns = new SubRuns(state, workflowId, publisher, isoNow);
  const timers = new ApprovalTimers(state, notifier, publish);
  const turnCalls = new TurnCalls(state, workflowId, { timers, notifier, subRuns, publish, now: isoNow });
  const desk = new DecisionDesk(state, publisher, subRuns, isoNow, workflowInfo().root?.workflowId ?? workflowId);

  // ── Handlers ─────────────────────────────────────────────────────────────────────────────────────────────
  setHandler(childStateSignal, (report) => subRuns.onReport(report));
  setHandler(approveSignal, (p) => desk.signal('approve', p));
  setHandler(rejectSignal, (p) => desk.signal('reject', p));
  setHandler(provideInputSignal, (p) => desk.signal('provideInput', p));
  setHandler(provideResultSignal, (p) => desk.signal('provideResult', p));
  setHandler(extendSignal, (p) => desk.signal('extend', p));
  setHandler(addInputSignal, (p) => desk.addInput(p));
  setHandler(decideUpdate, (p) => desk.update(p), { validator: (p) => desk.validate(p) });
  setHandler(nextPauseUpdate, () => condition(() => state.quiescent()).then(() => state.view()));
  setHandler(pendingApprovalsQuery, () => state.allPending());
  setHandler(runStateQuery, () => state.snapshot());
  setHandler(conversationQuery, (page) => state.conversation(page));
  setHandler(auditLogQuery, (page) => state.auditLog(page));
  setHandler(eventsQuery, (page) => state.events.page(page?.after, page?.limit));

  // ── Continue-as-new ──────────────────────────────────────────────────────────────────────────────────────
  const continueAsNewDue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= state.continueAsNewAfter;
  // Never with sub-runs in progress: they are children of this run and would not follow it.
  const readyToContinueAsNew = () => continueAsNewDue() && state.executing === 0 && state.children.size === 0 && state.turnSettled() && allHandlersFinished();
  async function continueAsNewNow(): Promise<never> {
    log.info('continuing as new', { historyLength: workflowInfo().historyLength, pending: state.book.undecided().length });
    const carry = state.toCarry();
    fitsInHistory('the continue-as-new state', carry);
    return continueAsNew<typeof agentRun>(input, carry);
  }

  /** Without payload storage (no transcript comes back), a payload over the limit would fail every workflow task: fail the run instead. */
  function fitsInHistory(what: string, value: unknown): void {
    if (state.transcript) return; // the worker offloads large payloads
    const problem = overInlineLimit(what, value);
    if (problem && patched('payload-too-large')) throw ApplicationFailure.create({ type: 'PayloadTooLarge', message: problem, nonRetryable: true });
  }

  // ── The turn loop ────────────────────────────────────────────────────────────────────────────────────────
  async function converse(): Promise<void> {
    if (!state.agent) {
      state.agent = await describeAgent({ name: input.agent, version: input.agentVersion });
      log.info('run started', { agent: state.agent.name, version: state.agent.version, tools: state.agent.tools.map((t) => t.name) });
    }
    publish();
    if (state.turnCalls.length) await answerTurn(state.turnCalls); // a turn that was waiting across continue-as-new
    let outputTries = 0;

    for (;;) {
      if (continueAsNewDue() && allHandlersFinished()) await continueAsNewNow();
      if (state.turn >= state.maxTurns) throw ApplicationFailure.nonRetryable(`the agent used all ${state.maxTurns} turns without a final answer`, 'MaxTurnsExceeded');
      state.turn += 1;
      if (state.queuedInputs.length) state.items.push(...state.queuedInputs.splice(0).map((content): ConversationItem => ({ type: 'message', role: 'user', content })));
      publish();
      // Only what is new since the stored transcript goes into history: the activity keeps the rest.
      const { transcript } = state;
      const modelSettings = mergeModelSettings(state.agent?.modelSettings, input.modelSettings); // the run's win
      const request = { runId: workflowId, turn: state.turn, agent: state.agentRef(), ...(transcript ? { transcript } : {}), items: state.items.slice(transcript?.count ?? 0), context: input.context ?? {}, policy: state.runPolicy, ...state.mcpTools(), ...(modelSettings ? { modelSettings } : {}) };
      fitsInHistory(`the conversation sent to the model in turn ${state.turn}`, request);
      const call = state.agent?.modelCalls === 'local' ? localModelTurn : modelTurn; // fast mode: recorded in the snapshot
      const result = await withAgent(state, publish, () => call.executeWithOptions({ ...withTimeout(modelOptions, input.modelTimeout), summary: `model turn ${state.turn}` }, [request]));
      if (result.transcript) state.transcript = result.transcript;
      state.usage = addUsage(state.usage, result.usage);
      state.items.push(...result.items);
      if (result.calls.length === 0 && result.outputProblem !== undefined) {
        // outputType: the answer did not match; the model hears why and answers again, OUTPUT_TRIES answers in all.
        if (++outputTries >= OUTPUT_TRIES)
          throw ApplicationFailure.nonRetryable(`the agent's final answer did not match its outputType in ${OUTPUT_TRIES} tries: ${result.outputProblem}`, 'OutputValidationFailed');
        state.items.push({ type: 'message', role: 'user', content: outputRetryText(result.outputProblem) });
        continue;
      }
      if (result.calls.length === 0) {
        const text = result.items.flatMap((i) => (i.type === 'message' && i.role === 'assistant' ? [i.content] : [])).join('\n');
        state.finished = { status: 'Completed', finalOutput: text };
        return;
      }
      await answerTurn(result.calls);
    }
  }

  /** The turn's answers join the conversation; a handoff decided in the turn then takes effect. */
  async function answerTurn(calls: PlannedCall[]): Promise<void> {
    state.items.push(...(await turnCalls.answer(calls, readyToContinueAsNew, continueAsNewNow)));
    if (!state.nextAgent) return;
    const { to, callId } = state.nextAgent;
    const from = state.agentRef().name;
    state.agent = await describeAgent({ name: to });
    state.handoffs.push({ from, to: state.agent.name, callId, at: isoNow() });
    state.nextAgent = undefined;
    log.info('handoff', { from, to: state.agent.name, version: state.agent.version });
    publish();
  }

  // ── Deadline, and how the run ends ───────────────────────────────────────────────────────────────────────
  const scope = new CancellationScope();
  let deadlinePassed = false;
  if (input.runTimeout) {
    const remaining = Date.parse(addDuration(state.startedAt, input.runTimeout)) - Date.now();
    void (async () => {
      if (remaining > 0) await sleep(remaining);
      deadlinePassed = true;
      scope.cancel();
    })();
  }

  try {
    await scope.run(converse);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    const cancelled = isCancellation(err) && !deadlinePassed;
    const cause = deadlinePassed && isCancellation(err) ? { message: `the run passed its deadline (runTimeout ${input.runTimeout})`, type: 'RunTimedOut' } : rootCause(err);
    // Nothing left dangling: calls still waiting are audited cancelled and leave the pending list and search attributes.
    const cleanUp = patched('cancel-pending');
    if (cleanUp) {
      state.book.cancelPending(isoNow(), cancelled ? 'the run was cancelled' : `the run ended: ${cause.message}`);
      state.children.clear();
    }
    state.finished = { status: 'Failed', error: cancelled ? 'the run was cancelled' : cause.message, errorType: cancelled ? 'RunCancelled' : cause.type };
    publish();
    if (cancelled && cleanUp) {
      // A cancelled run still gets its last notifications out, then ends as cancelled.
      await CancellationScope.nonCancellable(() => notifier.settled());
      throw err;
    }
    await notifier.settled();
    await condition(allHandlersFinished);
    // Fail with the real reason (e.g. the provider's 401 text), not a generic "activity task failed".
    throw ApplicationFailure.create({ message: cause.message, type: cause.type, nonRetryable: true, cause: err instanceof Error ? err : undefined });
  }
  publish();
  await notifier.settled();
  await condition(allHandlersFinished);
  return state.snapshot(RESULT_WINDOW) as RunResult;
}
