// Asking a person, once for every kind of item a run books: a model's tool call, a tripped guardrail, the max-turns
// question. An item enters the approval book on the terms it was planned with (core/approvals/waitTerms.ts), a
// notification goes out while it waits, the world is told (publish), and it waits until a decision arrives through
// the one intake (decisionDesk.ts) or its time runs out. The order is the same for every caller: book, notify,
// publish, wait — the order of commands recorded histories have.
//
// The wait runs on durable timers, as the item's terms say (the book holds them): its expiry (decided then by its
// onTimeout; an approver may extend it), reminders every so often and once before expiry, and one escalation.
// Timers survive worker restarts and deploys; reminders already sent are in the book, so a run that continued as
// new does not repeat them.
import type { AgentRunState } from '../core/run/agentRunState';
import type { BookCall, Booking, DeepReadonly } from '../core/approvals/approvalBook';
import type { PlannedAutoDecision } from '../core/approvals/plannedCall';
import type { Notification } from '../activities/notify';
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import { addDuration, durationMs } from '../contract/approvalPolicy';
import type { Notifier } from './notifier';
import { WAIT_TRACER, type WaitTracer, traceWait } from './waitTraces';

/** A booked item as its wait ends: decided, or expired on its onTimeout. */
export type Decided = DeepReadonly<BookCall>;

/** An item to book: what enters the book, and what the tool's onApproval code or a grant decided for it (approvals only). */
export interface Ask {
  booking: Booking;
  auto?: PlannedAutoDecision;
}

/** What every part of a run that asks a person is handed: one shape, built once in agentRun. */
export interface RunParts {
  ask: AskPerson;
  /** The run changed: the Publisher brings the world up to date at the activation's condition checks. */
  publish: () => void;
  now: () => string;
}

export class AskPerson {
  constructor(
    private readonly state: AgentRunState,
    private readonly notifier: Notifier,
    private readonly publish: () => void,
    private readonly now: () => string,
  ) {}

  /** Books each item not yet in the book, in order (a rule, a grant or onApproval may decide it at once), notifies those left waiting, then publishes once. */
  book(asks: readonly Ask[]): void {
    const book = this.state.book;
    for (const { booking, auto } of asks) {
      if (book.call(booking.callId)) continue; // carried across continue-as-new
      const booked = book.request(booking, booking.requestedAt, auto);
      if (booked.state === 'pending') this.notifier.about('approval_requested', booked);
    }
    this.publish();
  }

  /** One item: book it and wait for its decision. */
  ask(item: Ask): Promise<Decided> {
    this.book([item]);
    return this.decision(item.booking.callId);
  }

  /**
   * The item once it is decided, or decided by its onTimeout ('fail' fails the run with ApprovalTimedOut; an
   * extension moves the deadline); its reminders start first, if its terms have any. Without expiry or tracer that
   * is one `condition`, whose `.then` stands where the wait's own async frame stood: the promise resolves two
   * microtasks after the decision, as it always did, so the tool's activity is scheduled at the same point among the
   * activation's commands and recorded histories replay.
   */
  decision(callId: string): Promise<Decided> {
    const book = this.state.book;
    const call = book.call(callId)!;
    if (call.reminders && call.state === 'pending') this.startReminders(callId);
    const tracer = (globalThis as unknown as Record<symbol, WaitTracer | undefined>)[WAIT_TRACER];
    const wait = call.expiresAt
      ? () => this.untilDecided(callId)
      : () => condition(this.decided(callId)).then(() => book.call(callId)!);
    return tracer ? traceWait(tracer, this.state, callId, wait) : wait();
  }

  /**
   * A booked call a person must decide again (it may have run: `uncertain`; its target changed: `stale`), as the
   * book has just marked it: the world is told first, then the people, with what is new.
   */
  again(call: Decided, extra: Partial<Notification>): Promise<Decided> {
    this.publish();
    if (call.state === 'pending') this.notifier.about('approval_requested', call, extra);
    return this.decision(call.callId);
  }

  private decided(callId: string): () => boolean {
    return () => this.state.book.call(callId)!.state !== 'pending';
  }

  /** Starts the escalation and reminder timers of a pending call (each stops once it is decided). */
  private startReminders(callId: string): void {
    const call = this.state.book.call(callId)!;
    const { remindEvery, escalateAfter, escalateTo, remindBeforeExpiry } = call.reminders ?? {};
    if (remindBeforeExpiry && call.expiresAt) void this.remindBeforeExpiry(callId, remindBeforeExpiry);
    if (escalateAfter && !call.escalated) {
      void (async () => {
        const at = Date.parse(addDuration(call.requestedAt, escalateAfter));
        if (await this.until(this.decided(callId), at, `escalate ${call.toolName}`)) return;
        this.state.book.markEscalated(callId);
        this.notifier.about('approval_escalated', call, escalateTo ? { escalateTo } : {});
      })();
    }
    if (remindEvery) {
      void (async () => {
        for (;;) {
          const n = (call.remindersSent ?? 0) + 1;
          const at = Date.parse(call.requestedAt) + n * durationMs(remindEvery);
          if (call.expiresAt && at >= Date.parse(call.expiresAt)) return;
          if (await this.until(this.decided(callId), at, `reminder ${n}: ${call.toolName}`)) return;
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

  /** The wait of a call with an expiry: until it is decided or, on a durable timer, until it expires. */
  private async untilDecided(callId: string): Promise<Decided> {
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
    const action = book.expire(callId, this.now());
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
