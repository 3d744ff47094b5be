// Waiting for people on durable timers: a call's expiry (decided then by its onTimeout; an approver may extend
// it), reminders every so often and once before expiry, and one escalation — all as the call's planned terms say
// (the book holds them). Timers survive worker restarts and deploys; reminders already sent are in the book, so a
// run that continued as new does not repeat them.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { AgentRunState } from '../core/run/agentRunState';
import { addDuration, durationMs } from '../contract/approvalPolicy';
import type { Notifier } from './notifier';
import { traceWait } from './waitTraces';

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
    const { remindEvery, escalateAfter, escalateTo, remindBeforeExpiry } = call.reminders ?? {};
    if (remindBeforeExpiry && call.expiresAt) void this.remindBeforeExpiry(callId, remindBeforeExpiry);
    if (escalateAfter && !call.escalated) {
      void (async () => {
        if (
          await this.untilDecidedOr(callId, addDuration(call.requestedAt, escalateAfter), `escalate ${call.toolName}`)
        )
          return;
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

  /** Once per expiry, `before` it: an extension moves the expiry, and the reminder comes again before the new one. */
  private async remindBeforeExpiry(callId: string, before: string): Promise<void> {
    const call = this.state.book.call(callId)!;
    while (call.state === 'pending') {
      const expiry = call.expiresAt!;
      const moved = () => call.state !== 'pending' || call.expiresAt !== expiry;
      if (call.expiryReminderFor !== expiry) {
        const at = Date.parse(expiry) - durationMs(before);
        if (await this.until(moved, at, `expiry reminder: ${call.toolName}`)) continue;
        this.state.book.markExpiryReminded(callId, expiry);
        this.notifier.about('approval_expiring', call, { expiresIn: before });
      }
      await condition(moved);
    }
  }

  /** Waits until `at` (ms) or `done`; true if done first. */
  private async until(done: () => boolean, at: number, summary: string): Promise<boolean> {
    const ms = at - Date.now();
    if (ms <= 0) return done();
    return condition(done, ms, { summary });
  }

  /** Resolves when the call is decided, or decides it by its onTimeout; 'fail' fails the run. An extension moves the deadline. */
  waitForDecision(callId: string, now: () => string): Promise<void> {
    return traceWait(this.state, callId, () => this.untilDecided(callId, now));
  }

  private async untilDecided(callId: string, now: () => string): Promise<void> {
    const book = this.state.book;
    const call = book.call(callId)!;
    if (!call.expiresAt) return condition(this.decided(callId));
    for (;;) {
      const expiry = call.expiresAt;
      const decidedOrMoved = () => call.state !== 'pending' || call.expiresAt !== expiry;
      if (await this.until(decidedOrMoved, Date.parse(expiry), `approval timeout: ${call.toolName}`)) {
        if (call.state !== 'pending') return;
        continue; // extended: wait for the new expiry
      }
      break;
    }
    const action = book.expire(callId, now());
    this.publish();
    this.notifier.about('approval_timed_out', call, { onTimeout: action });
    if (action === 'fail') {
      throw ApplicationFailure.create({
        type: Failure.ApprovalTimedOut,
        message: `approval of ${call.toolName} (call ${callId}) timed out after ${call.timeout}`,
        nonRetryable: true,
      });
    }
  }
}
