// Answering the tool calls of one model turn. Calls that need no person run at once, in parallel; calls that need
// one enter the approval book (a notification goes out, timers start) and each runs the moment it is approved, or
// answers the model with its rejection text. Handoffs and sub-agents are carried out by the workflow itself.
import { condition, patched } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { bookingFor } from '../core/approvals/callBooking';
import type { ConversationItem } from '../contract/items';
import type { PlannedCall } from '../core/approvals/plannedCall';
import { runTool, toolOptions, withAgent, withTimeout } from './activityProxies';
import type { ApprovalTimers } from './approvalTimers';
import type { Notifier } from './notifier';
import type { SubRuns } from './subRuns';

export class TurnCalls {
  constructor(
    private readonly state: AgentRunState,
    private readonly workflowId: string,
    private readonly parts: { timers: ApprovalTimers; notifier: Notifier; subRuns: SubRuns; publish: () => void; now: () => string },
  ) {}

  /**
   * Answers every call of one model turn, in call order. When `ready` turns true while calls still wait for
   * people, the run continues as new instead (the carry holds the turn in progress).
   */
  async answer(calls: PlannedCall[], ready: () => boolean, continueAsNew: () => Promise<never>): Promise<ConversationItem[]> {
    const s = this.state;
    const { notifier, timers, publish, now } = this.parts;
    s.turnCalls = calls;
    const requestedAt = now();
    for (const c of calls) {
      if (c.disposition === 'error' || c.disposition === 'run' || s.book.call(c.callId)) continue; // booked already before a continue-as-new
      const booked = s.book.request(
        bookingFor(s, c, requestedAt),
        requestedAt,
        c.disposition === 'approval' && c.auto && patched('on-approval') ? c.auto : undefined,
      );
      if (booked.state === 'pending') notifier.about('approval_requested', booked);
    }
    publish();

    let failure: unknown;
    for (const c of calls) {
      if (s.outputs.has(c.callId)) continue;
      // Same shape as the recorded histories expect: an answer known at once is set in this very activation.
      void (async () => {
        try {
          let output: string;
          if (c.disposition === 'error') output = c.output;
          else if (c.disposition === 'run') {
            output = await this.execute(c);
            if (c.audit) s.book.recordAudited(c, now());
          } else {
            if (s.book.call(c.callId)!.state === 'pending') timers.startReminders(c.callId);
            await timers.waitForDecision(c.callId, now);
            const call = s.book.call(c.callId)!;
            output = call.state === 'approved' ? await this.execute(c) : call.state === 'resolved' ? call.externalOutput! : call.rejectionOutput!;
          }
          s.outputs.set(c.callId, output);
          publish();
        } catch (err) {
          failure ??= err;
        }
      })();
    }
    const answered = () => calls.every((c) => s.outputs.has(c.callId));
    await condition(() => answered() || failure !== undefined || ready());
    if (failure !== undefined) throw failure;
    if (!answered()) await continueAsNew();
    const answers = calls.map((c): ConversationItem => this.answerItem(c));
    s.turnCalls = [];
    s.outputs.clear();
    return answers;
  }

  /** What the model gets for a call: its output, or for a hosted MCP approval request, the approval response. */
  private answerItem(c: PlannedCall): ConversationItem {
    const output = this.state.outputs.get(c.callId)!;
    if (!('hostedMcp' in c && c.hostedMcp)) return { type: 'function_call_output', callId: c.callId, output };
    const approve = this.state.book.call(c.callId)?.state === 'approved';
    return { type: 'mcp_approval_response', approvalRequestId: c.callId, approve, ...(approve ? {} : { reason: output }) };
  }

  private async execute(call: PlannedCall): Promise<string> {
    const s = this.state;
    // The provider runs a hosted MCP call once it reads the approval: nothing runs in this worker.
    if ('hostedMcp' in call && call.hostedMcp && patched('hosted-mcp')) return 'approved';
    if ('subAgent' in call && call.subAgent) return this.parts.subRuns.run(call, call.subAgent);
    if ('handoffTo' in call && call.handoffTo) {
      // No activity: the workflow itself moves the conversation once this turn is answered.
      if (s.nextAgent) return `Not transferred: the conversation is already moving to ${s.nextAgent.to}.`;
      s.nextAgent = { to: call.handoffTo, callId: call.callId };
      return `Transferred to ${call.handoffTo}. It continues the conversation.`;
    }
    s.executing += 1;
    try {
      const edited = s.book.call(call.callId)?.editedArguments;
      const result = await withAgent(s, this.parts.publish, () =>
        runTool.executeWithOptions({ ...withTimeout(toolOptions, s.input.toolTimeout), summary: call.toolName }, [
          { runId: this.workflowId, agent: s.agentRef(), callId: call.callId, toolName: call.toolName, arguments: edited ?? call.arguments, context: s.input.context ?? {}, ...s.mcpTool(call.toolName) },
        ]),
      );
      // The model asked for other arguments; it must know what actually ran.
      if (!edited) return result.output;
      const note = call.disposition === 'input' ? `A person filled in ${call.fields.join(', ')}; the call ran with ${edited}.` : `A reviewer changed the arguments of this call before it ran; it ran with ${edited}.`;
      return `${note}\n${result.output}`;
    } finally {
      s.executing -= 1;
    }
  }
}
