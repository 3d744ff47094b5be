// Waiting for people on durable timers: a call's expiry (decided then by its onTimeout; an approver may extend
// it), reminders every so often and once before expiry, and one escalation — all as the call's planned terms say
// (the book holds them). Timers survive worker restarts and deploys; reminders already sent are in the book, so a
// run that continued as new does not repeat them.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { AgentRunState } from '../core/run/agentRunState';
import type { BookCall, DeepReadonly } from '../core/approvals/approvalBook';
import { addDuration, durationMs } from '../contract/approvalPolicy';
import type { Notifier } from './notifier';
import { WAIT_TRACER, type WaitTracer, traceWait } from './waitTraces';

type Decided = DeepReadonly<BookCall>;

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
  private startReminders(callId: string): void {
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

  /**
   * Starts the call's reminders (if its terms have any) and resolves with the call once it is decided, or decides it
   * by its onTimeout ('fail' fails the run; an extension moves the deadline). Without expiry or tracer that is one
   * `condition`, whose `.then` stands where the wait's own async frame stood: the promise resolves two microtasks
   * after the decision, as it always did, so the tool's activity is scheduled at the same point among the
   * activation's commands and recorded histories replay.
   */
  waitForDecision(callId: string, now: () => string): Promise<Decided> {
    const book = this.state.book;
    const call = book.call(callId)!;
    if (call.reminders && call.state === 'pending') this.startReminders(callId);
    const tracer = (globalThis as unknown as Record<symbol, WaitTracer | undefined>)[WAIT_TRACER];
    const wait = call.expiresAt
      ? () => this.untilDecided(callId, now)
      : () => condition(() => book.call(callId)!.state !== 'pending').then(() => book.call(callId)!);
    return tracer ? traceWait(tracer, this.state, callId, wait) : wait();
  }

  /** The wait of a call with an expiry: until it is decided or, on a durable timer, until it expires. */
  private async untilDecided(callId: string, now: () => string): Promise<Decided> {
    const book = this.state.book;
    const call = book.call(callId)!;
    for (;;) {
      const expiry = call.expiresAt!;
      const decidedOrMoved = () => call.state !== 'pending' || call.expiresAt !== expiry;
      if (await this.until(decidedOrMoved, Date.parse(expiry), `approval timeout: ${call.toolName}`)) {
        if (call.state !== 'pending') return call;
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
    return call;
  }
}
