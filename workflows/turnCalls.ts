// Answering the tool calls of one model turn. Calls that need no person run at once, in parallel; calls that need
// one enter the approval book on the terms they were planned with (a notification goes out, timers start) and each
// runs the moment it is approved, or answers the model with its rejection text. Sub-agents and handoffs are carried
// out by the workflow itself. The run loop decides what to do while calls wait (continue as new, say); this module
// only says whether the turn is answered.
import type { AgentRunState } from '../core/run/agentRunState';
import { bookingFor } from '../core/approvals/plannedCall';
import { type CallContext, callContext } from '../core/approvals/callContext';
import type { ConversationItem } from '../contract/items';
import type { PlannedCall } from '../core/approvals/plannedCall';
import { patched } from '@temporalio/workflow';
import { mayHaveRun, runToolCall, TargetChanged } from './toolAttempt';
import { PATCHES } from './patches';
import { timedOutAnswer } from './toolTimeouts';
import { staleRejection } from '../core/approvals/staleCalls';
import type { Ask, Decided, RunParts } from './askPerson';
import type { Handoffs } from './handoffs';
import type { SubRuns } from './subRuns';
import type { LedgerWriter } from './ledgerWriter';

export class TurnCalls {
  private failure: unknown;
  /** The turn's calls a decision has woken (its tool started, or its answer given), since they last waited. */
  private readonly woken = new Set<string>();

  constructor(
    private readonly state: AgentRunState,
    private readonly workflowId: string,
    private readonly parts: RunParts & { subRuns: SubRuns; handoffs: Handoffs; ledger: LedgerWriter },
  ) {}

  /**
   * Books the turn's calls and sets each on its way, in call order. A turn carried across continue-as-new starts
   * again from what its calls have: booked calls are not booked twice, answered ones not run twice.
   */
  start(calls: PlannedCall[]): void {
    const s = this.state;
    s.startTurnCalls(calls);
    this.failure = undefined;
    this.woken.clear();
    const requestedAt = this.parts.now();
    const agentName = s.agentRef().name;
    const asks: Ask[] = [];
    for (const c of calls) {
      if (c.disposition === 'error' || c.disposition === 'run' || s.book.call(c.callId)) continue;
      const where = { agentName, mcpServer: s.mcpTool(c.toolName).mcpTool?.mcpServer };
      asks.push({
        booking: { ...bookingFor(c, where, requestedAt), ...this.context(c.callId) },
        ...(c.disposition === 'approval' && c.auto ? { auto: c.auto } : {}),
      });
    }
    this.parts.ask.book(asks);
    for (const c of calls) if (!s.outputs.has(c.callId)) void this.answer(c);
  }

  /** Every call has its answer. */
  answered(): boolean {
    return this.state.turnCalls.every((c) => this.state.outputs.has(c.callId));
  }

  /** What failed the turn (a tool activity out of retries, an approval whose onTimeout is 'fail'), if anything. */
  failed(): unknown {
    return this.failure;
  }

  /**
   * A call of this turn was decided and its decision wakes it in this activation: approved, its runTool starts
   * (carrying the decision's ledger write); otherwise its answer is given (ledgerWriter.ts expect).
   */
  decisionComing(): boolean {
    const s = this.state;
    return s.turnCalls.some((c) => {
      const booked = s.book.call(c.callId);
      return (
        booked !== undefined && booked.state !== 'pending' && !this.woken.has(c.callId) && !s.outputs.has(c.callId)
      );
    });
  }

  /** The turn's answers join the conversation, in call order. */
  finish(): void {
    this.state.endTurnCalls(this.state.turnCalls.map((c) => this.answerItem(c)));
  }

  /**
   * The call's answer joins the run when it has one. `.then`s where an async frame and its awaits were: the answer
   * lands in the same microtask (so the same order of commands), with one promise instead of two.
   */
  private answer(c: PlannedCall): void {
    const s = this.state;
    const failed = (err: unknown) => void (this.failure ??= err);
    const answered = (output: string, audited = false) => {
      try {
        if (audited) s.book.recordAudited(c as Extract<PlannedCall, { disposition: 'run' }>, this.parts.now());
        s.answerCall(c.callId, output);
        this.parts.publish();
      } catch (err) {
        failed(err);
      }
    };
    try {
      if (c.disposition === 'error') return answered(c.output);
      if (c.disposition === 'run' && !s.book.call(c.callId))
        void this.run(c).then((output) => answered(output, c.audit === true), failed);
      else void this.decided(c).then((output) => answered(output), failed); // a run call is in the book once it became uncertain
    } catch (err) {
      failed(err);
    }
  }

  /**
   * Waits for the person (or the call's expiry) and carries out what they decided. Plain `.then`s where async frames
   * and their awaits were: the same microtasks between the decision, the tool's activity and the answer (so the
   * same order of commands), fewer promises.
   */
  private decided(
    c: Exclude<PlannedCall, { disposition: 'error' }>,
    waiting: Promise<Decided> = this.parts.ask.decision(c.callId),
  ): Promise<string> {
    this.woken.delete(c.callId);
    return waiting.then((call) => {
      this.woken.add(c.callId);
      return call.state === 'approved'
        ? this.run(c)
        : call.state === 'resolved'
          ? call.externalOutput!
          : call.rejectionOutput!;
    });
  }

  /** Runs the call. A tool that is not idempotent gets one attempt; if it may have run, a person says what came of it. */
  private run(c: Exclude<PlannedCall, { disposition: 'error' }>): Promise<string> {
    const once = c.idempotent === false && patched(PATCHES.uncertainCalls);
    return this.execute(c, once).then(undefined, (err: unknown) => {
      if (err instanceof TargetChanged) return this.again(c, err.stale);
      // A tool with its own timeout ran past it on every attempt: the model is told, the run goes on.
      const late = once ? undefined : timedOutAnswer(this.state.agent, c, err);
      if (late !== undefined) return late;
      if (!once) throw err;
      const because = mayHaveRun(err);
      if (because === undefined) throw err;
      const call = this.state.book.markUncertain(
        { ...c, ...this.context(c.callId) },
        this.state.agentRef().name,
        because,
        this.parts.now(),
      );
      return this.decided(
        c,
        this.parts.ask.again(call, { kind: 'uncertain', uncertainBecause: call.uncertainBecause }),
      );
    });
  }

  /** The approver's context for a call: the run's request and the assistant's words before it (data, no command). */
  private context(callId: string): CallContext {
    return callContext(this.state.input.input, this.state.items, callId);
  }

  /** What the approved call acts on changed before it ran: people decide again (or the tool's onStale rejects it). */
  private async again(
    c: Exclude<PlannedCall, { disposition: 'error' }>,
    stale: { was: string; now: string },
  ): Promise<string> {
    patched(PATCHES.staleApprovals); // only runs that met a stale call reach here, so this marks them and no older one
    const call = this.state.book.markStale(
      c.callId,
      stale,
      this.parts.now(),
      c.onStale === 'reject' ? staleRejection(c.toolName, stale) : undefined,
    );
    return this.decided(c, this.parts.ask.again(call, { stale }));
  }

  /** What the model gets for a call: its output, or for a hosted MCP approval request, the approval response. */
  private answerItem(c: PlannedCall): ConversationItem {
    const output = this.state.outputs.get(c.callId)!;
    if (!('hostedMcp' in c && c.hostedMcp)) return { type: 'function_call_output', callId: c.callId, output };
    const approve = this.state.book.call(c.callId)?.state === 'approved';
    return {
      type: 'mcp_approval_response',
      approvalRequestId: c.callId,
      approve,
      ...(approve ? {} : { reason: output }),
    };
  }

  private execute(call: PlannedCall, once = false): Promise<string> {
    if (
      ('hostedMcp' in call && call.hostedMcp) ||
      ('subAgent' in call && call.subAgent) ||
      ('handoffTo' in call && call.handoffTo)
    )
      return this.executeInRun(call);
    return runToolCall(this.state, this.workflowId, this.parts, call, once);
  }

  /** A call the run carries out itself (an async frame, as always: its answer comes in the same microtask). */
  private async executeInRun(call: PlannedCall): Promise<string> {
    // The provider runs a hosted MCP call once it reads the approval: nothing runs in this worker.
    if ('hostedMcp' in call && call.hostedMcp) return 'approved';
    if ('subAgent' in call && call.subAgent) return this.parts.subRuns.run(call, call.subAgent);
    return this.parts.handoffs.request((call as { handoffTo: string }).handoffTo, call.callId);
  }
}
