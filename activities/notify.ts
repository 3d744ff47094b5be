// Notifications about waiting approvals and every decision on them: always logged; POSTed as JSON to
// COUNTERSIGN_WEBHOOK_URL when set (approval_decided only then: it is a record for the user's own store).
// A failing webhook throws, so Temporal retries it; the workflow never waits on it, so it never blocks a run.
import type { PendingKind } from '../contract/runViews';
import { type NotifiedCall, loggable } from '../core/approvals/notifiedCall';
import { Failure } from '../contract/failureTypes';
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type LinkAction, type LinkSettings, actionLinks, buttonTokens } from '../links/actionLinks';
import { emailMessage, slackMessage } from '../links/messageBodies';
import { withDeadlineSignal } from './deadline';

export type NotificationEvent =
  | 'approval_requested'
  | 'approval_reminder'
  | 'approval_expiring'
  | 'approval_escalated'
  | 'approval_timed_out'
  | 'approval_decided';

/** What the webhook gets: the pending call's notified fields (core/approvals/notifiedCall.ts), plus the event's own. */
export interface Notification extends NotifiedCall {
  event: NotificationEvent;
  workflowId: string;
  /** The call's agent (PendingApproval.agentName). */
  agent: string;
  /** 1, 2, … for approval_reminder. */
  reminder?: number;
  /** For approval_escalated. */
  escalateTo?: string;
  /**
   * For approval_requested of a call that may or may not have run (a tool that is not idempotent): `uncertain`, and
   * why. People answer retry, done or failed (the CLI's `countersign resolve`, the inbox): no one-click links.
   */
  kind?: Extract<PendingKind, 'uncertain'>;
  /** For approval_timed_out: what the timeout did. */
  onTimeout?: string;
  /** For approval_expiring: how long before expiry this is. */
  expiresIn?: string;
  /**
   * For approval_decided: the audit entry's outcome (approved, rejected, approval_counted, auto_approved, expired,
   * cancelled, extended, …), who decided, whether the decision was signed, and when.
   */
  outcome?: string;
  approver?: string;
  verified?: boolean;
  keyId?: string;
  /** For outcome granted: the standing grant that approved the call. */
  grantId?: string;
  decidedAt?: string;
  via?: string;
  reason?: string;
  /**
   * For approval_requested, with COUNTERSIGN_PUBLIC_URL: one-click links (each opens a confirmation page on
   * `countersign serve`), and ready Slack Block Kit and email bodies carrying them. Made by the worker, never in history.
   */
  links?: Record<LinkAction, string>;
  slack?: ReturnType<typeof slackMessage>;
  email?: ReturnType<typeof emailMessage>;
}

export function createNotifyActivities(options: { webhookUrl?: string; timeoutMs?: number; links?: LinkSettings }) {
  return {
    async notify(raw: Notification): Promise<void> {
      log.info(`${raw.event}: ${raw.toolName} (call ${raw.callId}) in ${raw.workflowId}`, loggable(raw));
      if (!options.webhookUrl) return;
      const n =
        options.links && raw.event === 'approval_requested' && raw.kind !== 'uncertain'
          ? withLinks(raw, options.links)
          : raw;
      let res: Response;
      try {
        res = await withDeadlineSignal(options.timeoutMs ?? 10_000, (signal) =>
          fetch(options.webhookUrl!, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'countersign' },
            body: JSON.stringify(n),
            signal,
          }),
        );
      } catch (err) {
        throw ApplicationFailure.create({
          type: Failure.WebhookUnreachable,
          message: `webhook ${options.webhookUrl} unreachable: ${(err as Error).message}`,
        });
      }
      if (!res.ok)
        throw ApplicationFailure.create({
          type: Failure.WebhookFailed,
          message: `webhook ${options.webhookUrl} answered ${res.status}`,
        });
    },
  };
}

function withLinks(n: Notification, settings: LinkSettings): Notification {
  const links = actionLinks(settings, n);
  return { ...n, links, slack: slackMessage(n, links, buttonTokens(settings, n)), email: emailMessage(n, links) };
}

export type NotifyActivities = ReturnType<typeof createNotifyActivities>;
