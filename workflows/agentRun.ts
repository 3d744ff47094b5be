// agentRun: one agent conversation as one durable workflow. It reads top-down:
//   input → state (core/run/agentRunState.ts) → handlers (one line each) → the turn loop:
//   model turn (activity) → the turn's tool calls answered (turnCalls.ts: run at once, or wait for a person on
//   durable timers: askPerson.ts) → next model turn … → final output (no tool calls), MaxTurnsExceeded,
//   ApprovalTimedOut (onTimeout 'fail') or RunTimedOut.
// Decisions arrive as signals or the validating `decide` update and pass one intake (decisionDesk.ts). The loop
// alone decides to continue as new: between turns, or while a turn's calls wait only for people.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { AgentRunState } from '../core/run/agentRunState';
import { Failure } from '../contract/failureTypes';
import { type RunCarry } from '../core/run/runCarry';
import { RESULT_WINDOW } from '../core/run/logPages';
import { snapshotOf } from '../core/run/stateViews';
import { addDuration } from '../contract/approvalPolicy';
import { rootCause } from '../core/run/failures';
import { overInlineLimit } from '../core/run/payloadBudget';
import type { PlannedCall } from '../core/approvals/plannedCall';
import { mergeModelSettings } from '../contract/modelSettings';
import { OUTPUT_TRIES, assistantText, outputRetryText } from '../core/run/outputType';
import { describeAgent, localModelTurn, modelOptions, modelTurn, withAgent, withTimeout } from './activityProxies';
import { AskPerson } from './askPerson';
import { DecisionDesk } from './decisionDesk';
import { Handoffs } from './handoffs';
import { resetToolChoice, stopsAfterTools } from '../core/run/toolUse';
import { type RunInput, runInputSchema } from '../contract/messages';
import { describeZodError } from '../contract/zodErrors';
import { type RunResult } from '../contract/runViews';
import { Notifier } from './notifier';
import { LedgerWriter } from './ledgerWriter';
import { setRunHandlers } from './runHandlers';
import { Publisher } from './publisher';
import { SubRuns } from './subRuns';
import { TurnCalls } from './turnCalls';
import { countModelTurn } from './runMetrics';
import { hasChange } from './patches';
import { GuardrailGate } from './guardrailGate';
import { MaxTurns } from './maxTurns';
import { ServerConversation } from '../core/run/serverConversation';

const isoNow = () => new Date(Date.now()).toISOString();

export async function agentRun(rawInput: RunInput, carry?: RunCarry): Promise<RunResult> {
  const parsedInput = runInputSchema.safeParse(rawInput);
  if (!parsedInput.success)
    throw ApplicationFailure.nonRetryable(
      `invalid run input: ${describeZodError(parsedInput.error)}`,
      Failure.InvalidRunInput,
    );
  const input = parsedInput.data;
  const workflowId = workflowInfo().workflowId;

  const state = new AgentRunState(input, isoNow(), carry);
  const notifier = new Notifier(workflowId, () => state.agent?.webhook, input.subRunPath);
  const ledger = new LedgerWriter(state, carry); // the approvals ledger, where the run's worker keeps one
  const publisher = new Publisher(state, notifier, ledger);
  const publish = () => publisher.publish();
  const subRuns = new SubRuns(state, workflowId, publisher, isoNow);
  const parts = { ask: new AskPerson(state, notifier, publish, isoNow), publish, now: isoNow }; // askPerson.ts
  const handoffs = new Handoffs(state, publish, isoNow);
  const turnCalls = new TurnCalls(state, workflowId, { ...parts, subRuns, handoffs, ledger });
  ledger.expect(() => turnCalls.decisionComing()); // an approved call's runTool carries its decision's write
  const desk = new DecisionDesk(state, publisher, subRuns, isoNow, workflowInfo().root?.workflowId ?? workflowId);
  const guardrails = new GuardrailGate(state, workflowId, parts);
  const maxTurns = new MaxTurns(state, parts); // onMaxTurns
  const server = new ServerConversation(input.conversation, carry?.server, (line) => log.warn(line)); // conversation: 'server'

  // ── Handlers ─────────────────────────────────────────────────────────────────────────────────────────────
  setRunHandlers(state, desk, subRuns); // runHandlers.ts: the same for every run that books calls

  // ── Continue-as-new ──────────────────────────────────────────────────────────────────────────────────────
  const continueAsNewDue = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= state.continueAsNewAfter;
  // Never with sub-runs in progress: they are children of this run and would not follow it.
  const readyToContinueAsNew = () =>
    continueAsNewDue() &&
    state.executing === 0 &&
    state.children.size === 0 &&
    state.turnSettled() &&
    allHandlersFinished();
  // Change leanPromises (patches.ts): no wait for what is already so. Asked only once the agent is described.
  const lean = () => state.agent !== undefined && hasChange(state.agent, 'leanPromises');

  async function continueAsNewNow(): Promise<never> {
    log.info('continuing as new', {
      historyLength: workflowInfo().historyLength,
      pending: state.book.undecided().length,
    });
    publisher.settle(); // the activation's last check comes after the continue-as-new
    const carry = { ...state.toCarry(), ...server.carry(), ...ledger.carry() }; // unconfirmed entries go again
    fitsInHistory('the continue-as-new state', carry);
    return continueAsNew<typeof agentRun>(input, carry);
  }

  /** Without payload storage (no transcript comes back), a payload over the limit would fail every workflow task: fail the run instead. */
  function fitsInHistory(what: string, value: unknown): void {
    if (state.transcript) return; // the worker offloads large payloads
    const problem = overInlineLimit(what, value);
    if (problem)
      throw ApplicationFailure.create({ type: Failure.PayloadTooLarge, message: problem, nonRetryable: true });
  }

  // ── The turn loop ────────────────────────────────────────────────────────────────────────────────────────
  async function converse(): Promise<void> {
    if (!state.agent) {
      // The run's context goes along (for MCP toolFilter functions) only when it has one: the same command either way.
      const context = input.context && Object.keys(input.context).length ? { context: input.context } : {};
      state.described(await describeAgent({ name: input.agent, version: input.agentVersion, ...context }));
      log.info('run started', {
        agent: state.agentRef().name,
        version: state.agentRef().version,
        tools: state.agent!.tools.map((t) => t.name),
      });
    }
    publish();
    const carried = [...state.turnCalls];
    if (carried.length) await answerTurn(carried); // a turn that was waiting across continue-as-new
    if (carried.length && stopsAfterTools(state, carried)) return; // toolUseBehavior (core/run/toolUse.ts)
    let outputTries = 0;

    for (;;) {
      if (continueAsNewDue() && allHandlersFinished()) await continueAsNewNow();
      if (state.turn >= maxTurns.limit() && maxTurns.mode() !== 'fail') await maxTurns.reached(); // maxTurns.ts
      if (state.turn >= maxTurns.limit() && !maxTurns.finalTurn)
        throw ApplicationFailure.nonRetryable(
          `the agent used all ${state.maxTurns} turns without a final answer`,
          Failure.MaxTurnsExceeded,
        );
      const newInput = guardrails.newInput(); // the user's words this turn adds, with input guardrails
      state.startTurn();
      publish();
      // Only what is new since the stored transcript goes into history: the activity keeps the rest.
      const { transcript } = state;
      const modelSettings = maxTurns.settings(mergeModelSettings(state.agent?.modelSettings, input.modelSettings)); // the run's win
      const request = {
        runId: workflowId,
        turn: state.turn,
        agent: state.agentRef(),
        ...server.request(state.agent, state.items, transcript), // the transcript's tail, or only what the provider lacks
        context: input.context ?? {},
        policy: state.runPolicy,
        ...state.mcpTools(),
        ...(modelSettings ? { modelSettings } : {}),
        ...resetToolChoice(state, modelSettings, () => hasChange(state.agent, 'resetRunToolChoice')), // forced → 'auto' once a tool ran
        ...handoffs.view(), // after filtered handoffs: what this agent's model is sent
      };
      fitsInHistory(`the conversation sent to the model in turn ${state.turn}`, request);
      const call = state.agent?.modelCalls === 'local' ? localModelTurn : modelTurn; // fast mode: recorded in the snapshot
      const inputChecked = guardrails.checkInput(newInput); // alongside the model call, as the Agents SDK runs them
      const result = await withAgent(state, publish, () =>
        ledger.ride(
          (carried) =>
            call.executeWithOptions(
              { ...withTimeout(modelOptions, input.modelTimeout), summary: `model turn ${state.turn}` },
              [carried ? { ...request, ledger: carried } : request], // what the ledger has not yet (ledgerWriter.ts)
            ),
          (r) => r.ledgerWrite !== undefined,
        ),
      );
      if (inputChecked) await inputChecked; // before the model's answer is acted on
      state.modelAnswered(result);
      server.answered(result.responseId, state.items.length);
      countModelTurn(state.agentRef().name);
      if (result.calls.length === 0 && result.outputProblem !== undefined) {
        // outputType: the answer did not match; the model hears why and answers again, OUTPUT_TRIES answers in all.
        if (++outputTries >= OUTPUT_TRIES)
          throw ApplicationFailure.nonRetryable(
            `the agent's final answer did not match its outputType in ${OUTPUT_TRIES} tries: ${result.outputProblem}`,
            Failure.OutputValidationFailed,
          );
        state.tellModel(outputRetryText(result.outputProblem));
        continue;
      }
      if (result.calls.length === 0 || maxTurns.finalTurn) {
        if (guardrails.has('output') && !(await guardrails.checkOutput(result.items))) continue; // rejected: again
        state.complete(assistantText(result.items));
        return;
      }
      await answerTurn(result.calls);
      if (stopsAfterTools(state, result.calls)) return;
    }
  }

  /** The turn's calls answered (or, while they wait only for people and history is long, the run continues as new). */
  async function answerTurn(calls: PlannedCall[]): Promise<void> {
    turnCalls.start(calls);
    await condition(() => turnCalls.answered() || turnCalls.failed() !== undefined || readyToContinueAsNew());
    if (turnCalls.failed() !== undefined) throw turnCalls.failed();
    if (!turnCalls.answered()) await continueAsNewNow();
    turnCalls.finish();
    if (state.nextAgent || !lean()) await handoffs.complete();
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
    const cause =
      deadlinePassed && isCancellation(err)
        ? { message: `the run passed its deadline (runTimeout ${input.runTimeout})`, type: Failure.RunTimedOut }
        : rootCause(err);
    // Nothing left dangling: calls still waiting are audited cancelled and leave the pending list and search attributes.
    state.fail(
      isoNow(),
      cancelled ? 'the run was cancelled' : cause.message,
      cancelled ? Failure.RunCancelled : cause.type,
    );
    publish();
    publisher.settle(); // the run ends before the activation's last check
    if (cancelled) {
      // A cancelled run still gets its last notifications out, then ends as cancelled.
      await CancellationScope.nonCancellable(() => notifier.settled());
      if (ledger.on) await CancellationScope.nonCancellable(() => ledger.close());
      throw err;
    }
    await notifier.settled();
    if (ledger.on) await ledger.close();
    await condition(allHandlersFinished);
    // Fail with the real reason (e.g. the provider's 401 text), not a generic "activity task failed".
    throw ApplicationFailure.create({
      message: cause.message,
      type: cause.type,
      nonRetryable: true,
      cause: err instanceof Error ? err : undefined,
    });
  }
  publish();
  publisher.settle();
  const leanEnd = lean();
  if (notifier.busy || !leanEnd) await notifier.settled();
  if (ledger.on) await ledger.close();
  if (!leanEnd || !allHandlersFinished()) await condition(allHandlersFinished);
  return snapshotOf(state, RESULT_WINDOW) as RunResult;
}
