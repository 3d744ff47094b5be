// Notifications about waiting calls (requested, reminder, escalated, timed out): fire and forget. A notification
// never blocks or fails the run (Temporal retries the activity on its own); before the run closes, the ones in
// flight get a bounded chance to land, since a closed run drops them.
import { condition, log } from '@temporalio/workflow';
import type { Notification, NotificationEvent } from '../activities/notify';
import type { BookCall } from '../domain/approvalBook';
import { rootCause } from '../domain/failures';
import { notify, notifyOptions } from './activities';

const DRAIN_LIMIT = '1 minute';

export class Notifier {
  private inFlight = 0;

  constructor(private readonly workflowId: string) {}

  about(event: NotificationEvent, call: BookCall, extra: Partial<Notification> = {}): void {
    const n: Notification = {
      event,
      workflowId: this.workflowId,
      agent: call.agentName,
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      requestedAt: call.requestedAt,
      ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
      ...extra,
    };
    this.inFlight += 1;
    notify
      .executeWithOptions({ ...notifyOptions, summary: `${event}: ${call.toolName}` }, [n])
      .catch((err) => log.warn('notification failed', { event, callId: call.callId, error: rootCause(err).message }))
      .finally(() => (this.inFlight -= 1));
  }

  /** Waits (at most a minute) for notifications still in flight. */
  settled(): Promise<boolean> {
    return condition(() => this.inFlight === 0, DRAIN_LIMIT);
  }
}
