// agentRun: one agent conversation as one durable workflow.
//   model turn (activity) → tool calls classified → calls that need no person run at once, in parallel →
//   calls that need approval wait in the approval book (durable timers for timeout, reminders, escalation) →
//   each runs the moment it is approved, or answers the model with the rejection text → next model turn … →
//   final output (no tool calls), MaxTurnsExceeded, ApprovalTimedOut (onTimeout 'fail') or RunTimedOut.
// Decisions arrive as `approve` / `reject` signals or the validating `decide` update; `nextPause` lets a client
// long-poll for the next moment the run waits only for people (or ends). Long runs continue-as-new with their
// whole state, at a moment when nothing is executing and no handler is running.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/agentActivities';
import type { PlannedCall } from '../domain/plannedCall';
import type { AgentSnapshot } from '../domain/agentSnapshot';
import type { Notification, NotificationEvent } from '../activities/notify';
import { ApprovalBook, type BookCall, type BookState, checkDecision } from '../domain/approvalBook';
import type { Duration } from '@temporalio/common';
import { rootCause } from '../domain/failures';
import { type ApprovalPolicy, addDuration, durationMs, effectivePolicy } from '../domain/approvalPolicy';
import { summarizeCall } from '../domain/callSummary';
import { type ConversationItem, type Usage, addUsage, emptyUsage } from '../domain/items';
import {

  type AppliedDecision,
  type ChildReport,
  type DecideResult,
  type Decision,
  type PendingApproval,
  type Handoff,
  type RunInput,
  type RunResult,
  type RunSnapshot,
  type RunStatus,
  addInputPayloadSchema,
  addInputSignal,
  approvePayloadSchema,
  approveSignal,
  childStateSignal,
  provideInputPayloadSchema,
  provideInputSignal,
  provideResultPayloadSchema,
  provideResultSignal,
  decidePayloadSchema,
  decideUpdate,
  describeZodError,
  nextPauseUpdate,
  pendingApprovalsQuery,
  rejectPayloadSchema,
  rejectSignal,
  runInputSchema,
  runStateQuery,
} from './messages';
import { searchAttributeUpdates } from './searchAttributes';

const DEFAULT_MAX_TURNS = 10;
const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 10_000;
/** While no worker has the run's agent version: wait this long, doubling up to the maximum, and try again. */
const AGENT_WAIT_INITIAL_MS = 2_000;
const AGENT_WAIT_MAX_MS = 5 * 60_000;
const NOTIFY_DRAIN_LIMIT = '1 minute';

const modelOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
};
const toolOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};
const notifyOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
};
const { modelTurn, runTool, notify } = proxyActivities<AgentActivities>(modelOptions);
const { describeAgent, validateArguments } = proxyLocalActivities<AgentActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** Everything a run hands to its continuation (continue-as-new): the conversation mid-turn, the book, counters. */
export interface RunCarry {
  agent: AgentSnapshot;
  startedAt: string;
  items: ConversationItem[];
  usage: Usage;
  turn: number;
  book: BookState;
  /** The calls of the turn in progress, and the answers they already have. */
  turnCalls: PlannedCall[];
  outputs: Record<string, string>;
  continuedAsNew: number;
  /** User messages waiting for the next model turn. */
  inputs?: string[];
  handoffs?: Handoff[];
  /** A handoff decided in the turn in progress, taking effect when the turn ends. */
  nextAgent?: { to: string; callId: string };
}

const isoNow = () => new Date(Date.now()).toISOString();

export async function agentRun(rawInput: RunInput, carry?: RunCarry): Promise<RunResult> {
  const parsedInput = runInputSchema.safeParse(rawInput);
  if (!parsedInput.success) throw ApplicationFailure.nonRetryable(`invalid run input: ${describeZodError(parsedInput.error)}`, 'InvalidRunInput');
  const input = parsedInput.data;
  const runId = workflowInfo().workflowId;
  const context = input.context ?? {};
  const maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;
  const continueAsNewAfter = input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
  // Who may approve is the definitions' call, not the run starter's: no `approvers` here.
  const runPolicy: ApprovalPolicy = {
    approvalTimeout: input.approvalTimeout,
    onTimeout: input.onTimeout,
    remindEvery: input.remindEvery,
    escalateAfter: input.escalateAfter,
    escalateTo: input.escalateTo,
  };

  const book = new ApprovalBook(carry?.book);
  // Always-rules handed down by a parent that opted in (asTool shareAlwaysRules) apply to this run's agent.
  if (!carry && input.alwaysRules) for (const [tool, rule] of Object.entries(input.alwaysRules)) book.state.sticky[`${input.agent}/${tool}`] = rule;
  /** Sub-runs (agent.asTool) in progress, by child workflow id: what each waits for, as it last reported. */
  const children = new Map<string, { callId: string; toolName: string; waiting: boolean; pending: PendingApproval[] }>();
  /** Calls of sub-runs whose decision was passed on, until the sub-run reports again. */
  const forwarded = new Set<string>();
  const items: ConversationItem[] = carry?.items ?? [{ type: 'message', role: 'user', content: input.input }];
  const startedAt = carry?.startedAt ?? isoNow();
  let agent: AgentSnapshot | undefined = carry?.agent;
  let usage = carry?.usage ?? emptyUsage();
  let turn = carry?.turn ?? 0;
  let turnCalls: PlannedCall[] = carry?.turnCalls ?? [];
  const outputs = new Map<string, string>(Object.entries(carry?.outputs ?? {}));
  const queuedInputs: string[] = [...(carry?.inputs ?? [])];
  const handoffs: Handoff[] = [...(carry?.handoffs ?? [])];
  let nextAgent = carry?.nextAgent;
  let finished: { status: 'Completed' | 'Failed'; finalOutput?: string; error?: string; errorType?: string } | undefined;
  let problem: string | undefined;
  let executing = 0;
  let notifying = 0;
  /** Decisions whose edited arguments or input values are being checked: the run is not waiting on people then. */
  let validating = 0;

  const agentRef = () => ({ name: agent?.name ?? input.agent, version: agent?.version ?? input.agentVersion ?? '' });
  /** Calls waiting in sub-runs, named by the path of tools that leads to them. */
  const childPending = (): PendingApproval[] =>
    [...children.entries()].flatMap(([childId, c]) =>
      c.pending.filter((p) => !forwarded.has(p.callId)).map((p) => ({ ...p, path: `${c.toolName} > ${p.path ?? p.toolName}`, runId: p.runId ?? childId })),
    );
  const allPending = (): PendingApproval[] => (children.size ? [...book.pendingApprovals(), ...childPending()] : book.pendingApprovals());
  const childOwning = (callId: string) => [...children.entries()].find(([, c]) => c.pending.some((p) => p.callId === callId) && !forwarded.has(callId));
  const status = (): RunStatus => finished?.status ?? (allPending().length > 0 ? 'AwaitingApproval' : 'Running');
  const childWaiting = (callId: string) => [...children.values()].some((c) => c.callId === callId && c.waiting);
  /** Every call of the current turn is answered, waits for a person, or is a sub-run that waits for one. */
  const turnSettled = () => turnCalls.every((c) => outputs.has(c.callId) || book.call(c.callId)?.state === 'pending' || childWaiting(c.callId));
  /** The run waits for people only, or has ended. */
  const quiescent = () => finished !== undefined || (allPending().length > 0 && executing === 0 && validating === 0 && turnSettled());
  const continueAsNewDue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= continueAsNewAfter;
  // Never with sub-runs in progress: they are children of this run and would not follow it.
  const readyToContinueAsNew = () => continueAsNewDue() && executing === 0 && children.size === 0 && turnSettled() && allHandlersFinished();

  const snapshot = (): RunSnapshot => ({
    agent: agentRef(),
    status: status(),
    turn,
    maxTurns,
    items: [...items],
    pending: allPending(),
    audit: [...book.state.audit],
    usage,
    startedAt,
    continuedAsNew: carry?.continuedAsNew ?? 0,
    queuedInputs: [...queuedInputs],
    handoffs: [...handoffs],
    ...(input.runTimeout ? { deadline: addDuration(startedAt, input.runTimeout) } : {}),
    ...(problem ? { problem } : {}),
    ...(finished?.finalOutput !== undefined ? { finalOutput: finished.finalOutput } : {}),
    ...(finished?.error ? { error: finished.error } : {}),
    ...(finished?.errorType ? { errorType: finished.errorType } : {}),
  });

  let published = '';
  /** Search attributes and the Web UI's "current details" follow every transition. */
  function publish() {
    reportToParent();
    const pending = allPending();
    const key = `${status()}|${agentRef().name}|${problem ?? ''}|${pending.map((p) => p.callId).join(',')}`;
    if (key === published) return;
    published = key;
    upsertSearchAttributes(searchAttributeUpdates({ status: status(), agent: agentRef().name, pending }));
    const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
    const details = pending.length
      ? `Awaiting approval: ${pending.map((p) => `${p.path ? `${p.path.slice(0, p.path.lastIndexOf(' > ') + 3)}` : ''}${summarizeCall(p.toolName, p.arguments)} (call ${p.callId}, requested ${when(p.requestedAt)}${p.expiresAt ? `, expires ${when(p.expiresAt)}` : ''})`).join('; ')}`
      : `${status()}: ${agentRef().name}, turn ${turn}`;
    setCurrentDetails(problem ? `${details}\nProblem: ${problem}` : details);
  }

  let reported = '';
  /** A sub-run tells its parent what it waits for (and whether it waits only for people), on every change. */
  function reportToParent() {
    const parent = workflowInfo().parent;
    if (!parent) return;
    const report: ChildReport = { childWorkflowId: runId, waiting: quiescent(), pending: finished ? [] : allPending() };
    const key = `${report.waiting}|${report.pending.map((p) => p.callId).join(',')}`;
    if (key === reported) return;
    reported = key;
    getExternalWorkflowHandle(parent.workflowId)
      .signal(childStateSignal, report)
      .catch((err) => log.warn('could not report to the parent run', { error: rootCause(err).message }));
  }

  setHandler(childStateSignal, (r) => {
    const child = children.get(r.childWorkflowId);
    if (!child) return;
    child.waiting = r.waiting;
    child.pending = r.pending;
    for (const id of [...forwarded]) if (!r.pending.some((p) => p.callId === id)) forwarded.delete(id);
    publish();
  });

  /** Passes a decision for a sub-run's call on to that sub-run, as the matching signal. */
  function forward(childId: string, d: Decision): AppliedDecision {
    const child = getExternalWorkflowHandle(childId);
    const who = { callId: d.callId, ...(d.approver ? { approver: d.approver } : {}), ...(d.reason ? { reason: d.reason } : {}) };
    const sent =
      d.decision === 'approve'
        ? child.signal(approveSignal, { ...who, ...(d.always ? { alwaysApprove: true } : {}), ...(d.editedArguments !== undefined ? { editedArguments: d.editedArguments } : {}) })
        : d.decision === 'reject'
          ? child.signal(rejectSignal, { ...who, ...(d.always ? { alwaysReject: true } : {}), ...(d.message ? { message: d.message } : {}) })
          : d.decision === 'input'
            ? child.signal(provideInputSignal, { ...who, values: d.values ?? {} })
            : child.signal(provideResultSignal, { callId: d.callId, ...(d.approver ? { approver: d.approver } : {}), ...(d.error !== undefined ? { error: d.error } : { result: d.result as string }) });
    sent.catch((err) => log.warn('could not forward a decision to the sub-run', { childId, callId: d.callId, error: rootCause(err).message }));
    forwarded.add(d.callId);
    const toolName = children.get(childId)?.pending.find((p) => p.callId === d.callId)?.toolName ?? '';
    log.info('decision forwarded to sub-run', { childId, callId: d.callId, decision: d.decision });
    publish();
    return { callId: d.callId, toolName, outcome: 'forwarded', ...(d.approver ? { approver: d.approver } : {}) };
  }

  /** Why a decision cannot apply here: against this run's book, or against what a sub-run reported. */
  function checkHere(d: Decision, batch: Decision[] = []): string | undefined {
    const owner = book.call(d.callId) ? undefined : childOwning(d.callId);
    if (!owner) return book.check(d, batch);
    return checkDecision(owner[1].pending.find((p) => p.callId === d.callId), d, batch);
  }

  // ── Decisions ──────────────────────────────────────────────────────────────────────────────────────────────
  function applyDecisions(decisions: Decision[], via: 'signal' | 'update') {
    const applied = book.decide(decisions, isoNow(), via);
    for (const a of applied) log.info('decision applied', { callId: a.callId, tool: a.toolName, outcome: a.outcome, approver: a.approver, via });
    publish();
    return applied;
  }

  const refuse = (message: string) => ApplicationFailure.create({ type: 'DecisionRejected', message, nonRetryable: true });
  /** Edited arguments and input values must be checked against the tool's schema, in an activity. */
  const needsValidation = (d: Decision) => d.editedArguments !== undefined || d.decision === 'input';

  /**
   * Edited arguments are checked against the tool's schema (an activity: the schema lives with the tool) and
   * returned as normalised JSON text; the first invalid one is the refusal. Decisions without edits pass as is.
   */
  async function withValidatedEdits(decisions: Decision[]): Promise<{ decisions: Decision[]; problem?: string }> {
    if (!patched('edited-arguments')) return { decisions, problem: 'this run started before edited arguments existed; approve or reject as is' };
    const out: Decision[] = [];
    for (const d of decisions) {
      if (!needsValidation(d)) {
        out.push(d);
        continue;
      }
      const call = book.call(d.callId);
      if (!call) return { decisions, problem: `unknown call id ${d.callId}: it is not a pending approval of this run` };
      // Input values complete the model's arguments; edited arguments replace them.
      const raw =
        d.decision === 'input'
          ? JSON.stringify({ ...(JSON.parse(call.arguments) as Record<string, unknown>), ...d.values })
          : typeof d.editedArguments === 'string'
            ? d.editedArguments
            : JSON.stringify(d.editedArguments);
      validating += 1;
      const checked = await validateArguments({ agent: agentRef(), toolName: call.toolName, arguments: raw }).finally(() => (validating -= 1));
      const what = d.decision === 'input' ? 'input values' : 'editedArguments';
      if (!checked.ok) return { decisions, problem: `${what} for call ${d.callId} (${call.toolName}) are invalid: ${checked.problem}` };
      out.push({ ...d, editedArguments: checked.arguments });
    }
    return { decisions: out };
  }

  // Decisions without edited arguments apply synchronously, in the handler's own activation, exactly as runs
  // recorded before edits existed expect on replay (test/histories); only edits take the asynchronous path.
  const signalSchemas = { approve: approvePayloadSchema, reject: rejectPayloadSchema, provideInput: provideInputPayloadSchema, provideResult: provideResultPayloadSchema };

  /** A signal's payload as a decide entry. */
  function decisionFromSignal(kind: keyof typeof signalSchemas, p: Record<string, unknown>): Decision {
    const base = { callId: p.callId as string, approver: p.approver as string | undefined, reason: p.reason as string | undefined };
    if (kind === 'provideInput') return { ...base, decision: 'input', values: p.values as Record<string, unknown> };
    if (kind === 'provideResult') return { ...base, decision: 'result', ...(p.error !== undefined ? { error: p.error as string } : { result: p.result as string }) };
    return {
      ...base,
      decision: kind,
      always: (kind === 'approve' ? p.alwaysApprove : p.alwaysReject) as boolean | undefined,
      message: p.message as string | undefined,
      ...(p.editedArguments !== undefined ? { editedArguments: p.editedArguments as string } : {}),
    };
  }

  function onSignal(kind: keyof typeof signalSchemas, raw: unknown): void | Promise<void> {
    const parsed = signalSchemas[kind].safeParse(raw);
    const claimed = (raw ?? {}) as { callId?: unknown; approver?: unknown };
    const ignore = (why: string, who: { callId?: unknown; approver?: unknown }) => {
      log.warn('signal ignored', { why });
      book.ignore(who, why, isoNow(), 'signal');
    };
    if (!parsed.success) return ignore(`malformed ${kind} signal: ${describeZodError(parsed.error)}`, claimed);
    const p = parsed.data as Record<string, unknown> & { callId: string; approver?: string };
    const decision = decisionFromSignal(kind, p);
    const before = checkHere(decision);
    if (before) return ignore(before, p);
    const owner = book.call(decision.callId) ? undefined : childOwning(decision.callId);
    if (owner) {
      forward(owner[0], decision);
      return;
    }
    if (!needsValidation(decision)) {
      applyDecisions([decision], 'signal');
      return;
    }
    return (async () => {
      const validated = await withValidatedEdits([decision]);
      const problemWithIt = validated.problem ?? book.check(decision); // checked again: another decision may have landed meanwhile
      if (problemWithIt) return ignore(problemWithIt, p);
      applyDecisions(validated.decisions, 'signal');
    })();
  }

  function queueInputs(messages: string[]) {
    queuedInputs.push(...messages);
    log.info('user input queued for the next turn', { count: messages.length });
  }

  setHandler(approveSignal, (p) => onSignal('approve', p));
  setHandler(rejectSignal, (p) => onSignal('reject', p));
  setHandler(provideInputSignal, (p) => onSignal('provideInput', p));
  setHandler(provideResultSignal, (p) => onSignal('provideResult', p));
  setHandler(addInputSignal, (p) => {
    const parsed = addInputPayloadSchema.safeParse(p);
    if (!parsed.success) return log.warn('addInput signal ignored', { why: describeZodError(parsed.error) });
    queueInputs([parsed.data.message]);
  });
  setHandler(
    decideUpdate,
    (payload) => {
      const all = decidePayloadSchema.parse(payload);
      // Decisions for calls inside sub-runs go on to them (the sub-run validates and records them).
      const owners = new Map(all.decisions.flatMap((d) => (book.call(d.callId) ? [] : [[d.callId, childOwning(d.callId)?.[0]] as const])));
      const p = { ...all, decisions: all.decisions.filter((d) => !owners.get(d.callId)) };
      const finish = (decisions: Decision[]): DecideResult => {
        const applied = decisions.length ? applyDecisions(decisions, 'update') : [];
        for (const d of all.decisions) {
          const childId = owners.get(d.callId);
          if (childId) applied.push(forward(childId, d));
        }
        if (p.inputs?.length) queueInputs(p.inputs);
        return { applied, stillPending: allPending().map((c) => c.callId), ...(p.inputs?.length ? { inputsQueued: queuedInputs.length } : {}) };
      };
      if (!p.decisions.some(needsValidation)) return finish(p.decisions);
      return (async () => {
        const validated = await withValidatedEdits(p.decisions);
        if (validated.problem) throw refuse(validated.problem);
        for (const d of p.decisions) {
          const why = book.check(d, p.decisions); // again: another decision may have landed while edits were checked
          if (why) throw refuse(why);
        }
        return finish(validated.decisions);
      })();
    },
    {
      validator: (payload) => {
        const parsed = decidePayloadSchema.safeParse(payload);
        // Refusals are final for this request: say so (nonRetryable) so the CLI and clients do not suggest retrying.
        if (!parsed.success) throw refuse(`invalid decide request: ${describeZodError(parsed.error)}`);
        for (const d of parsed.data.decisions) {
          const why = checkHere(d, parsed.data.decisions);
          if (why) throw refuse(why);
        }
      },
    },
  );
  setHandler(nextPauseUpdate, async () => {
    await condition(quiescent);
    return snapshot();
  });
  setHandler(pendingApprovalsQuery, allPending);
  setHandler(runStateQuery, snapshot);

  // ── Activities ─────────────────────────────────────────────────────────────────────────────────────────────
  /** Runs an activity that needs the run's agent version; while no worker has it, the run waits and says so. */
  async function withAgent<T>(fn: () => Promise<T>): Promise<T> {
    let wait = AGENT_WAIT_INITIAL_MS;
    for (;;) {
      try {
        const result = await fn();
        if (problem) {
          problem = undefined;
          publish();
        }
        return result;
      } catch (err) {
        const cause = rootCause(err);
        if (cause.type !== 'AgentUnavailable') throw err;
        problem = `${cause.message}; waiting for a worker that has it (next try in ${wait / 1000}s)`;
        log.warn('agent version unavailable; run waits', { problem });
        publish();
        await sleep(wait);
        wait = Math.min(wait * 2, AGENT_WAIT_MAX_MS);
      }
    }
  }

  async function execute(call: PlannedCall): Promise<string> {
    if ('subAgent' in call && call.subAgent) return runSubAgent(call, call.subAgent);
    if ('handoffTo' in call && call.handoffTo) {
      // No activity: the workflow itself moves the conversation once this turn is answered.
      if (nextAgent) return `Not transferred: the conversation is already moving to ${nextAgent.to}.`;
      nextAgent = { to: call.handoffTo, callId: call.callId };
      return `Transferred to ${call.handoffTo}. It continues the conversation.`;
    }
    executing += 1;
    try {
      const edited = book.call(call.callId)?.editedArguments;
      const result = await withAgent(() =>
        runTool.executeWithOptions({ ...toolOptions, ...(input.toolTimeout ? { startToCloseTimeout: input.toolTimeout as Duration } : {}), summary: call.toolName }, [
          { runId, agent: agentRef(), callId: call.callId, toolName: call.toolName, arguments: edited ?? call.arguments, context },
        ]),
      );
      // The model asked for other arguments; it must know what actually ran.
      if (!edited) return result.output;
      const note = call.disposition === 'input' ? `A person filled in ${call.fields.join(', ')}; the call ran with ${edited}.` : `A reviewer changed the arguments of this call before it ran; it ran with ${edited}.`;
      return `${note}\n${result.output}`;
    } finally {
      executing -= 1;
    }
  }

  /** agent.asTool: the sub-agent runs as a child workflow; its final output is this call's output. */
  async function runSubAgent(call: PlannedCall, subAgent: string): Promise<string> {
    const childId = `${runId}/${call.callId}`;
    const request = (() => {
      try {
        return String((JSON.parse(call.arguments) as { input?: unknown }).input ?? '');
      } catch {
        return '';
      }
    })();
    const share = 'shareAlwaysRules' in call && call.shareAlwaysRules;
    const rules = share
      ? Object.fromEntries(Object.entries(book.state.sticky).map(([key, rule]) => [key.slice(key.indexOf('/') + 1), rule]))
      : undefined;
    children.set(childId, { callId: call.callId, toolName: call.toolName, waiting: false, pending: [] });
    publish();
    try {
      const result = await executeChild(agentRun, {
        workflowId: childId,
        args: [{ agent: subAgent, input: request || '(no input)', context, ...(rules && Object.keys(rules).length ? { alwaysRules: rules } : {}) }],
        staticSummary: `${subAgent} for ${agentRef().name} (call ${call.callId})`,
      });
      return result.finalOutput;
    } catch (err) {
      return `The ${subAgent} agent failed: ${rootCause(err).message}`;
    } finally {
      children.delete(childId);
      publish();
    }
  }

  /** Fire and forget: a notification never blocks or fails the run (Temporal retries it on its own). */
  function notifyAbout(event: NotificationEvent, call: BookCall, extra: Partial<Notification> = {}) {
    const n: Notification = {
      event,
      workflowId: runId,
      agent: call.agentName,
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      requestedAt: call.requestedAt,
      ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
      ...extra,
    };
    notifying += 1;
    notify
      .executeWithOptions({ ...notifyOptions, summary: `${event}: ${call.toolName}` }, [n])
      .catch((err) => log.warn('notification failed', { event, callId: call.callId, error: rootCause(err).message }))
      .finally(() => (notifying -= 1));
  }

  /** Before the run closes, give notifications in flight a bounded chance to land (a closed run drops them). */
  const notificationsSettled = () => condition(() => notifying === 0, NOTIFY_DRAIN_LIMIT);

  // ── Waiting for people ─────────────────────────────────────────────────────────────────────────────────────
  const policyFor = (toolName: string) => effectivePolicy(agent?.policy, agent?.tools.find((t) => t.name === toolName)?.policy, runPolicy);
  const decided = (callId: string) => () => book.call(callId)!.state !== 'pending';
  /** Waits until `at` (ISO) or a decision; true if decided first. Durable timers only. */
  async function untilDecidedOr(callId: string, at: string, summary: string): Promise<boolean> {
    const ms = Date.parse(at) - Date.now();
    if (ms <= 0) return decided(callId)();
    return condition(decided(callId), ms, { summary });
  }

  function startReminders(callId: string) {
    const call = book.call(callId)!;
    const policy = policyFor(call.toolName);
    const { remindEvery, escalateAfter, escalateTo } = policy;
    if (escalateAfter && !call.escalated) {
      void (async () => {
        if (await untilDecidedOr(callId, addDuration(call.requestedAt, escalateAfter), `escalate ${call.toolName}`)) return;
        book.markEscalated(callId);
        notifyAbout('approval_escalated', call, escalateTo ? { escalateTo } : {});
      })();
    }
    if (remindEvery) {
      void (async () => {
        for (;;) {
          const n = (call.remindersSent ?? 0) + 1;
          const at = new Date(Date.parse(call.requestedAt) + n * durationMs(remindEvery)).toISOString();
          if (call.expiresAt && at >= call.expiresAt) return;
          if (await untilDecidedOr(callId, at, `reminder ${n}: ${call.toolName}`)) return;
          book.markReminded(callId, n);
          notifyAbout('approval_reminder', call, { reminder: n });
        }
      })();
    }
  }

  /** Resolves when the call is decided, or decides it by its timeout policy; 'fail' fails the run. */
  async function waitForDecision(callId: string): Promise<void> {
    const call = book.call(callId)!;
    if (!call.expiresAt) return condition(decided(callId));
    if (await untilDecidedOr(callId, call.expiresAt, `approval timeout: ${call.toolName}`)) return;
    const action = book.expire(callId, isoNow());
    publish();
    notifyAbout('approval_timed_out', call, { onTimeout: action });
    if (action === 'fail') {
      const timeout = policyFor(call.toolName).approvalTimeout;
      throw ApplicationFailure.create({ type: 'ApprovalTimedOut', message: `approval of ${call.toolName} (call ${callId}) timed out after ${timeout}`, nonRetryable: true });
    }
  }

  /** Answers every call of one model turn; approved calls run the moment they are approved. */
  async function answerCalls(calls: PlannedCall[]): Promise<ConversationItem[]> {
    turnCalls = calls;
    const requestedAt = isoNow();
    for (const c of calls) {
      if (c.disposition === 'error' || c.disposition === 'run' || book.call(c.callId)) continue; // booked already before a continue-as-new
      const policy = policyFor(c.toolName);
      // External calls wait on their tool's resultTimeout (and only reject or fail); the others on the approval policy.
      const resultTimeout = agent?.tools.find((t) => t.name === c.toolName)?.resultTimeout;
      const timeout = c.disposition === 'external' ? resultTimeout : policy.approvalTimeout;
      const onTimeout = c.disposition === 'external' ? (policy.onTimeout === 'fail' ? 'fail' : 'reject') : (policy.onTimeout ?? 'reject');
      const booked = book.request(
        {
          callId: c.callId,
          ...(c.disposition !== 'approval' ? { kind: c.disposition } : {}),
          ...(c.disposition === 'input' ? { fields: c.fields } : {}),
          toolName: c.toolName,
          arguments: c.arguments,
          agentName: agentRef().name,
          requestedAt,
          rejectionText: c.rejectionText,
          ...(timeout ? { expiresAt: addDuration(requestedAt, timeout), onTimeout, timeoutText: c.timeoutText } : {}),
          ...(policy.approvers ? { approvers: policy.approvers } : {}),
        },
        requestedAt,
      );
      if (booked.state === 'pending') notifyAbout('approval_requested', booked);
    }
    publish();

    let failure: unknown;
    for (const c of calls) {
      if (outputs.has(c.callId)) continue;
      void (async () => {
        try {
          let output: string;
          if (c.disposition === 'error') output = c.output;
          else if (c.disposition === 'run') {
            output = await execute(c);
            if (c.audit) book.recordAudited(c, isoNow());
          } else {
            if (book.call(c.callId)!.state === 'pending') startReminders(c.callId);
            await waitForDecision(c.callId);
            const call = book.call(c.callId)!;
            output = call.state === 'approved' ? await execute(c) : call.state === 'resolved' ? call.externalOutput! : call.rejectionOutput!;
          }
          outputs.set(c.callId, output);
          publish();
        } catch (err) {
          failure ??= err;
        }
      })();
    }
    const answered = () => calls.every((c) => outputs.has(c.callId));
    await condition(() => answered() || failure !== undefined || readyToContinueAsNew());
    if (failure !== undefined) throw failure;
    if (!answered()) await continueAsNewNow();
    const answers = calls.map((c): ConversationItem => ({ type: 'function_call_output', callId: c.callId, output: outputs.get(c.callId)! }));
    turnCalls = [];
    outputs.clear();
    return answers;
  }

  async function continueAsNewNow(): Promise<never> {
    log.info('continuing as new', { historyLength: workflowInfo().historyLength, pending: book.undecided().length });
    const next: RunCarry = {
      agent: agent!,
      startedAt,
      items,
      usage,
      turn,
      book: book.state,
      turnCalls,
      outputs: Object.fromEntries(outputs),
      continuedAsNew: (carry?.continuedAsNew ?? 0) + 1,
      inputs: queuedInputs,
      handoffs,
      ...(nextAgent ? { nextAgent } : {}),
    };
    return continueAsNew<typeof agentRun>(input, next);
  }

  // ── The loop ───────────────────────────────────────────────────────────────────────────────────────────────
  async function converse(): Promise<void> {
    if (!agent) {
      agent = await describeAgent({ name: input.agent, version: input.agentVersion });
      log.info('run started', { agent: agent.name, version: agent.version, tools: agent.tools.map((t) => t.name) });
    }
    publish();
    if (turnCalls.length) await answerTurn(turnCalls); // a turn that was waiting across continue-as-new

    for (;;) {
      if (continueAsNewDue() && allHandlersFinished()) await continueAsNewNow();
      if (turn >= maxTurns) throw ApplicationFailure.nonRetryable(`the agent used all ${maxTurns} turns without a final answer`, 'MaxTurnsExceeded');
      turn += 1;
      if (queuedInputs.length) items.push(...queuedInputs.splice(0).map((content): ConversationItem => ({ type: 'message', role: 'user', content })));
      publish();
      const result = await withAgent(() =>
        modelTurn.executeWithOptions({ ...modelOptions, ...(input.modelTimeout ? { startToCloseTimeout: input.modelTimeout as Duration } : {}), summary: `model turn ${turn}` }, [{ runId, agent: agentRef(), items, context, policy: runPolicy }]),
      );
      usage = addUsage(usage, result.usage);
      items.push(...result.items);
      if (result.calls.length === 0) {
        const text = result.items.flatMap((i) => (i.type === 'message' && i.role === 'assistant' ? [i.content] : [])).join('\n');
        finished = { status: 'Completed', finalOutput: text };
        return;
      }
      await answerTurn(result.calls);
    }
  }

  /** The turn's answers join the conversation; a handoff decided in the turn then takes effect. */
  async function answerTurn(calls: PlannedCall[]): Promise<void> {
    items.push(...(await answerCalls(calls)));
    if (!nextAgent) return;
    const { to, callId } = nextAgent;
    const from = agentRef().name;
    agent = await describeAgent({ name: to });
    handoffs.push({ from, to: agent.name, callId, at: isoNow() });
    nextAgent = undefined;
    log.info('handoff', { from, to: agent.name, version: agent.version });
    publish();
  }

  const scope = new CancellationScope();
  let deadlinePassed = false;
  if (input.runTimeout) {
    const runTimeout = input.runTimeout;
    const remaining = Date.parse(addDuration(startedAt, runTimeout)) - Date.now();
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
    const cause =
      deadlinePassed && isCancellation(err) ? { message: `the run passed its deadline (runTimeout ${input.runTimeout})`, type: 'RunTimedOut' } : rootCause(err);
    finished = { status: 'Failed', error: cause.message, errorType: cause.type };
    publish();
    await notificationsSettled();
    await condition(allHandlersFinished);
    // Fail with the real reason (e.g. the provider's 401 text), not a generic "activity task failed".
    throw ApplicationFailure.create({ message: cause.message, type: cause.type, nonRetryable: true, cause: err instanceof Error ? err : undefined });
  }
  publish();
  await notificationsSettled();
  await condition(allHandlersFinished);
  return snapshot() as RunResult;
}
