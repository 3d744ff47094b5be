// agentRun: one agent conversation as one durable workflow.
//   model turn (activity) → tool calls classified → calls that need no person run at once, in parallel →
//   calls that need approval wait in the approval book → each runs the moment it is approved, or answers the
//   model with the rejection text → next model turn … → final output (no tool calls) or MaxTurnsExceeded.
// Decisions arrive as `approve` / `reject` signals or the validating `decide` update; `nextPause` lets a client
// long-poll for the next moment the run waits only for people (or ends).
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, PlannedCall } from '../activities/agentActivities';
import { ApprovalBook } from './approvalBook';
import { type ConversationItem, addUsage, emptyUsage } from './items';
import {
  type Decision,
  type RunInput,
  type RunResult,
  type RunSnapshot,
  type RunStatus,
  approvePayloadSchema,
  approveSignal,
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

const modelOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
};
const toolOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};
const { modelTurn, runTool } = proxyActivities<AgentActivities>(modelOptions);
const { describeAgent } = proxyLocalActivities<AgentActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** The innermost failure's message and type: what actually went wrong. */
function rootCause(err: unknown): { message: string; type?: string } {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  if (e instanceof ApplicationFailure) return { message: e.message, type: e.type ?? undefined };
  return { message: e instanceof Error ? e.message : String(e) };
}

const isoNow = () => new Date(Date.now()).toISOString();

export async function agentRun(rawInput: RunInput): Promise<RunResult> {
  const parsedInput = runInputSchema.safeParse(rawInput);
  if (!parsedInput.success) throw ApplicationFailure.nonRetryable(`invalid run input: ${describeZodError(parsedInput.error)}`, 'InvalidRunInput');
  const input = parsedInput.data;
  const runId = workflowInfo().workflowId;
  const context = input.context ?? {};
  const maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;

  const book = new ApprovalBook();
  const items: ConversationItem[] = [{ type: 'message', role: 'user', content: input.input }];
  let usage = emptyUsage();
  let turn = 0;
  let agent = { name: input.agent, version: input.agentVersion ?? '' };
  let finished: { status: 'Completed' | 'Failed'; finalOutput?: string; error?: string; errorType?: string } | undefined;
  // Outputs of the current turn's calls, by call id; a call is "in progress" until it has one.
  let turnCalls: PlannedCall[] = [];
  const outputs = new Map<string, string>();

  const status = (): RunStatus => finished?.status ?? (book.undecided().length > 0 ? 'AwaitingApproval' : 'Running');
  /** The run waits for people only: something is undecided and every decided call of this turn is answered. */
  const quiescent = () =>
    finished !== undefined ||
    (book.undecided().length > 0 && turnCalls.every((c) => outputs.has(c.callId) || book.call(c.callId)?.state === 'pending'));

  const snapshot = (): RunSnapshot => ({
    agent,
    status: status(),
    turn,
    maxTurns,
    items: [...items],
    pending: book.pendingApprovals(),
    audit: [...book.state.audit],
    usage,
    ...(finished?.finalOutput !== undefined ? { finalOutput: finished.finalOutput } : {}),
    ...(finished?.error ? { error: finished.error } : {}),
    ...(finished?.errorType ? { errorType: finished.errorType } : {}),
  });

  let published = '';
  /** Search attributes and the Web UI's "current details" follow every transition. */
  function publish() {
    const pending = book.undecided();
    const key = `${status()}|${pending.map((p) => p.callId).join(',')}`;
    if (key === published) return;
    published = key;
    upsertSearchAttributes(searchAttributeUpdates({ status: status(), agent: agent.name, pending }));
    setCurrentDetails(
      pending.length
        ? `Awaiting approval: ${pending.map((p) => `${p.toolName} (call ${p.callId}, requested ${p.requestedAt})`).join('; ')}`
        : `${status()} — ${agent.name}, turn ${turn}`,
    );
  }

  function applyDecisions(decisions: Decision[], via: 'signal' | 'update') {
    const applied = book.decide(decisions, isoNow(), via);
    for (const a of applied) log.info('decision applied', { callId: a.callId, tool: a.toolName, outcome: a.outcome, approver: a.approver, via });
    publish();
    return applied;
  }

  function onSignal(kind: 'approve' | 'reject', raw: unknown) {
    const schema = kind === 'approve' ? approvePayloadSchema : rejectPayloadSchema;
    const parsed = schema.safeParse(raw);
    const claimed = (raw ?? {}) as { callId?: unknown; approver?: unknown };
    if (!parsed.success) {
      const why = `malformed ${kind} signal: ${describeZodError(parsed.error)}`;
      log.warn('signal ignored', { why });
      book.ignore(claimed, why, isoNow(), 'signal');
      return;
    }
    const p = parsed.data;
    const problem = book.check(p);
    if (problem) {
      log.warn('signal ignored', { why: problem });
      book.ignore(p, problem, isoNow(), 'signal');
      return;
    }
    const always = 'alwaysApprove' in p ? p.alwaysApprove : (p as { alwaysReject?: boolean }).alwaysReject;
    applyDecisions([{ callId: p.callId, decision: kind, always, message: 'message' in p ? p.message : undefined, reason: p.reason, approver: p.approver }], 'signal');
  }

  setHandler(approveSignal, (p) => onSignal('approve', p));
  setHandler(rejectSignal, (p) => onSignal('reject', p));
  setHandler(
    decideUpdate,
    (payload) => {
      const applied = applyDecisions(decidePayloadSchema.parse(payload).decisions, 'update');
      return { applied, stillPending: book.undecided().map((c) => c.callId) };
    },
    {
      validator: (payload) => {
        const parsed = decidePayloadSchema.safeParse(payload);
        // Refusals are final for this request: say so (nonRetryable) so the CLI and clients do not suggest retrying.
        const refuse = (message: string) => ApplicationFailure.create({ type: 'DecisionRejected', message, nonRetryable: true });
        if (!parsed.success) throw refuse(`invalid decide request: ${describeZodError(parsed.error)}`);
        for (const d of parsed.data.decisions) {
          const problem = book.check(d, parsed.data.decisions);
          if (problem) throw refuse(problem);
        }
      },
    },
  );
  setHandler(nextPauseUpdate, async () => {
    await condition(quiescent);
    return snapshot();
  });
  setHandler(pendingApprovalsQuery, () => book.pendingApprovals());
  setHandler(runStateQuery, snapshot);

  async function execute(call: PlannedCall): Promise<string> {
    const result = await runTool.executeWithOptions({ ...toolOptions, summary: call.toolName }, [
      { runId, agent, callId: call.callId, toolName: call.toolName, arguments: call.arguments, context },
    ]);
    return result.output;
  }

  /** Answers every call of one model turn; approved calls run the moment they are approved. */
  async function answerCalls(calls: PlannedCall[]): Promise<ConversationItem[]> {
    turnCalls = calls;
    outputs.clear();
    const requestedAt = isoNow();
    for (const c of calls) {
      if (c.disposition === 'approval') {
        book.request({ callId: c.callId, toolName: c.toolName, arguments: c.arguments, agentName: agent.name, requestedAt, rejectionText: c.rejectionText }, requestedAt);
      }
    }
    publish();
    await Promise.all(
      calls.map(async (c) => {
        let output: string;
        if (c.disposition === 'error') output = c.output;
        else if (c.disposition === 'run') output = await execute(c);
        else {
          await condition(() => book.call(c.callId)!.state !== 'pending');
          const decided = book.call(c.callId)!;
          output = decided.state === 'approved' ? await execute(c) : decided.rejectionOutput!;
        }
        outputs.set(c.callId, output);
      }),
    );
    return calls.map((c) => ({ type: 'function_call_output', callId: c.callId, output: outputs.get(c.callId)! }));
  }

  try {
    const described = await describeAgent({ name: input.agent, version: input.agentVersion });
    agent = { name: described.name, version: described.version };
    log.info('run started', { agent: described.name, version: described.version, tools: described.tools.map((t) => t.name) });
    publish();

    for (;;) {
      if (turn >= maxTurns) throw ApplicationFailure.nonRetryable(`the agent used all ${maxTurns} turns without a final answer`, 'MaxTurnsExceeded');
      turn += 1;
      publish();
      const result = await modelTurn.executeWithOptions({ ...modelOptions, summary: `model turn ${turn}` }, [{ runId, agent, items, context }]);
      usage = addUsage(usage, result.usage);
      items.push(...result.items);
      if (result.calls.length === 0) {
        const text = result.items.flatMap((i) => (i.type === 'message' && i.role === 'assistant' ? [i.content] : [])).join('\n');
        finished = { status: 'Completed', finalOutput: text };
        break;
      }
      items.push(...(await answerCalls(result.calls)));
    }
  } catch (err) {
    const cause = rootCause(err);
    finished = { status: 'Failed', error: cause.message, errorType: cause.type };
    publish();
    await condition(allHandlersFinished);
    // Fail with the real reason (e.g. the provider's 401 text), not a generic "activity task failed".
    throw ApplicationFailure.create({ message: cause.message, type: cause.type, nonRetryable: true, cause: err instanceof Error ? err : undefined });
  }
  publish();
  await condition(allHandlersFinished);
  return snapshot() as RunResult;
}
