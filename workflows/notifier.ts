// Notifications about waiting calls (requested, reminders, escalated, timed out) and, where the worker has a webhook,
// every decision (approval_decided): fire and forget. A notification never blocks or fails the run (Temporal
// retries the activity on its own); before the run closes, the ones in flight get a bounded chance to land, since
// a closed run drops them.
import { condition, log } from '@temporalio/workflow';
import type { Notification, NotificationEvent } from '../activities/notify';
import type { BookCall, DeepReadonly } from '../core/approvals/approvalBook';
import type { AuditEntry } from '../contract/runViews';
import { loggable, notifiedCall } from '../core/approvals/notifiedCall';
import { rootCause } from '../core/run/failures';
import { notify, notifyOptions } from './activityProxies';

const DRAIN_LIMIT = '1 minute';

export class Notifier {
  private inFlight = 0;

  constructor(
    private readonly workflowId: string,
    /** Whether the worker that described the run's agent POSTs to a webhook (its snapshot says so). */
    private readonly webhook: () => boolean | undefined,
    /** In a sub-run: the tools that lead to it, so a call's path reads as the parent shows it (`ask_lookup > read_file`). */
    private readonly subRunPath?: string,
  ) {}

  about(event: NotificationEvent, call: DeepReadonly<BookCall>, extra: Partial<Notification> = {}): void {
    const n: Notification = {
      event,
      workflowId: this.workflowId,
      agent: call.agentName,
      ...notifiedCall(call),
      ...(this.subRunPath ? { path: `${this.subRunPath} > ${call.path ?? call.toolName}` } : {}),
      ...extra,
    };
    // Without a webhook the activity would only log: log here instead, and spare the run three history events
    // and a workflow task per notification.
    if (this.webhook() !== true) {
      log.info(`${event}: ${call.toolName} (call ${call.callId}) in ${this.workflowId}`, loggable(n));
      return;
    }
    this.send(n, `${event}: ${call.toolName}`);
  }

  private send(n: Notification, summary: string): void {
    this.inFlight += 1;
    notify
      .executeWithOptions({ ...notifyOptions, summary }, [n])
      .catch((err) =>
        log.warn('notification failed', { event: n.event, callId: n.callId, error: rootCause(err).message }),
      )
      .finally(() => (this.inFlight -= 1));
  }

  /** approval_decided for audit entries that decided something (not refusals, audited runs or forwards). */
  decided(entries: AuditEntry[], agent: string): void {
    for (const e of entries) {
      if (e.decision === 'ignored' || e.decision === 'audited' || e.decision === 'forwarded') continue;
      const n: Notification = {
        event: 'approval_decided',
        workflowId: this.workflowId,
        agent: e.agentName ?? agent,
        callId: e.callId,
        toolName: e.toolName ?? '',
        arguments: e.arguments ?? '',
        requestedAt: e.requestedAt ?? e.decidedAt,
        outcome: e.decision,
        decidedAt: e.decidedAt,
        via: e.via,
        ...(e.approver ? { approver: e.approver } : {}),
        ...(e.verified ? { verified: true, keyId: e.keyId } : {}),
        ...(e.grantId ? { grantId: e.grantId } : {}),
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
        ...(e.onTimeout ? { onTimeout: e.onTimeout } : {}),
      };
      this.send(n, `${e.decision}: ${e.toolName ?? e.callId}`);
    }
  }

  /** Notifications are in flight. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Waits (at most a minute) for notifications still in flight. */
  settled(): Promise<boolean> {
    // Nothing in flight (always so without a webhook): no condition, whose timer the SDK would start and cancel.
    if (this.inFlight === 0) return Promise.resolve(true);
    return condition(() => this.inFlight === 0, DRAIN_LIMIT);
  }
}
