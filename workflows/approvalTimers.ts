// Waiting for people on durable timers: a call's timeout (decided then by its onTimeout policy), reminders every so
// often, and one escalation. Timers survive worker restarts and deploys; reminders already sent are in the book,
// so a run that continued as new does not repeat them.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { AgentRunState } from '../domain/agentRunState';
import { addDuration, durationMs } from '../domain/approvalPolicy';
import type { Notifier } from './notifications';

export class ApprovalTimers {
  constructor(
    private readonly state: AgentRunState,
    private readonly notifier: Notifier,
    private readonly publish: () => void,
  ) {}

  private decided(callId: string): () => boolean {
    return () => this.state.book.call(callId)!.state !== 'pending';
  }

  /** Waits until `at` (ISO) or a decision; true if decided first. */
  private async untilDecidedOr(callId: string, at: string, summary: string): Promise<boolean> {
    const ms = Date.parse(at) - Date.now();
    if (ms <= 0) return this.decided(callId)();
    return condition(this.decided(callId), ms, { summary });
  }

  /** Starts the escalation and reminder timers of a pending call (each stops once it is decided). */
  startReminders(callId: string): void {
    const call = this.state.book.call(callId)!;
    const { remindEvery, escalateAfter, escalateTo } = this.state.policyFor(call.toolName);
    if (escalateAfter && !call.escalated) {
      void (async () => {
        if (await this.untilDecidedOr(callId, addDuration(call.requestedAt, escalateAfter), `escalate ${call.toolName}`)) return;
        this.state.book.markEscalated(callId);
        this.notifier.about('approval_escalated', call, escalateTo ? { escalateTo } : {});
      })();
    }
    if (remindEvery) {
      void (async () => {
        for (;;) {
          const n = (call.remindersSent ?? 0) + 1;
          const at = new Date(Date.parse(call.requestedAt) + n * durationMs(remindEvery)).toISOString();
          if (call.expiresAt && at >= call.expiresAt) return;
          if (await this.untilDecidedOr(callId, at, `reminder ${n}: ${call.toolName}`)) return;
          this.state.book.markReminded(callId, n);
          this.notifier.about('approval_reminder', call, { reminder: n });
        }
      })();
    }
  }

  /** Resolves when the call is decided, or decides it by its timeout policy; 'fail' fails the run. */
  async waitForDecision(callId: string, now: () => string): Promise<void> {
    const book = this.state.book;
    const call = book.call(callId)!;
    if (!call.expiresAt) return condition(this.decided(callId));
    if (await this.untilDecidedOr(callId, call.expiresAt, `approval timeout: ${call.toolName}`)) return;
    const action = book.expire(callId, now());
    this.publish();
    this.notifier.about('approval_timed_out', call, { onTimeout: action });
    if (action === 'fail') {
      const timeout = this.state.policyFor(call.toolName).approvalTimeout;
      throw ApplicationFailure.create({ type: 'ApprovalTimedOut', message: `approval of ${call.toolName} (call ${callId}) timed out after ${timeout}`, nonRetryable: true });
    }
  }
}
