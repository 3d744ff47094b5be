// Ready-made messages for a waiting call: a Slack Block Kit body (POST it to chat.postMessage or an incoming
// webhook as is) and an email (subject, text, HTML). Besides the call, they carry what the approver needs to
// decide: the run's request, the assistant's words before the call, the arguments laid out for people, quorum
// progress, and when it was asked and expires (relative to when the message is built, with the absolute time,
// since a message is read later). Every value from the run is escaped for its medium.
import { type ArgumentView, argumentText, argumentView } from '../core/approvals/argumentView';
import { asksToRun } from '../core/approvals/callSummary';
import { quorumText } from '../core/approvals/decisionText';
import { relativeTime, utcMinute } from '../core/relativeTime';
import { cut, emailArgumentHtml, slackArgumentTexts, slackEscape } from './argumentMarkup';
import { escapeHtml, html } from './html';
import type { LinkAction } from './actionLinks';
import type { PendingApproval } from '../contract/pendingCall';

/** What a message shows of the pending call, with its run and agent (a Notification is one). */
export type CallForPeople = Pick<
  PendingApproval,
  'callId' | 'toolName' | 'arguments' | 'expiresAt' | 'preview' | 'request' | 'assistantSaid' | 'quorum'
> &
  Partial<Pick<PendingApproval, 'requestedAt'>> & { workflowId: string; agent: string };

// Slack: a section's text holds at most 3000 characters and a message at most 50 blocks (this one has at most 10).
const SECTION_MAX = 2900;

/** "Asked 3 min ago (2026-11-25 10:00 UTC)", "Expires in 2 h (…)", quorum progress: the lines a message shows. */
function whenLines(c: CallForPeople, now: number): string[] {
  return [
    ...(c.requestedAt ? [`Asked ${relativeTime(c.requestedAt, now)} (${utcMinute(c.requestedAt)})`] : []),
    ...(c.expiresAt ? [`Expires ${relativeTime(c.expiresAt, now)} (${utcMinute(c.expiresAt)})`] : []),
    ...(c.quorum ? [quorumText(c.quorum)] : []),
  ];
}

const said = (c: CallForPeople) =>
  [
    ...(c.request ? [['Request', c.request]] : []),
    ...(c.assistantSaid ? [['Assistant', c.assistantSaid]] : []),
  ] as Array<[string, string]>;
// verbatim: Slack neither links URLs nor parses @channel-style mentions in text that came from a run.
const mrkdwn = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } });

/**
 * With `buttons` (tokens from actionLinks.ts buttonTokens), Approve / Reject are interactive buttons that Slack posts
 * to `countersign serve` (/slack/actions); a context line keeps the confirmation-page links for workspaces whose
 * app takes no interactivity. Without, Approve… / Reject… are link buttons.
 */
export function slackMessage(
  c: CallForPeople,
  links: Record<LinkAction, string>,
  buttons?: { approve: string; reject: string },
  now = Date.now(),
): { text: string; blocks: unknown[] } {
  const title = asksToRun(c.agent, c.toolName, c.arguments);
  const when = whenLines(c, now);
  return {
    text: cut(title, 300),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: cut(
            `*${slackEscape(c.toolName)}* waits for approval (agent ${slackEscape(c.agent)}, run \`${slackEscape(c.workflowId)}\`)`,
            2900,
          ),
        },
      },
      ...said(c).map(([label, text]) => mrkdwn(cut(`*${label}:* ${slackEscape(text)}`, SECTION_MAX))),
      ...(c.preview
        ? [
            {
              type: 'section',
              text: { type: 'mrkdwn', text: cut(`*Impact:* ${slackEscape(c.preview.summary)}`, 2900) },
            },
          ]
        : []),
      ...slackArgumentTexts(argumentView(c.arguments), SECTION_MAX).map(mrkdwn),
      ...(when.length
        ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(when.join(' · ')), verbatim: true }] }]
        : []),
      ...actionBlocks(links, buttons),
    ],
  };
}

// Slack allows a button value of at most 2000 characters: longer tokens (very long run ids) stay links.
function actionBlocks(links: Record<LinkAction, string>, buttons?: { approve: string; reject: string }): unknown[] {
  const view = { type: 'button', text: { type: 'plain_text', text: 'View run' }, url: links.view, action_id: 'view' };
  if (!buttons || buttons.approve.length > 2000 || buttons.reject.length > 2000)
    return [
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve…' },
            url: links.approve,
            action_id: 'approve',
          },
          {
            type: 'button',
            style: 'danger',
            text: { type: 'plain_text', text: 'Reject…' },
            url: links.reject,
            action_id: 'reject',
          },
          view,
        ],
      },
    ];
  return [
    {
      type: 'actions',
      block_id: 'countersign_actions',
      elements: [
        {
          type: 'button',
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          value: buttons.approve,
          action_id: 'countersign_approve',
        },
        {
          type: 'button',
          style: 'danger',
          text: { type: 'plain_text', text: 'Reject' },
          value: buttons.reject,
          action_id: 'countersign_reject',
        },
        view,
      ],
    },
    {
      type: 'context',
      block_id: 'countersign_links',
      elements: [
        { type: 'mrkdwn', text: `Or on a confirmation page: <${links.approve}|Approve…> · <${links.reject}|Reject…>` },
      ],
    },
  ];
}

export function emailMessage(
  c: CallForPeople,
  links: Record<LinkAction, string>,
  now = Date.now(),
): { subject: string; text: string; html: string } {
  const subject = cut(`Approval needed: ${c.toolName} (${c.agent})`, 200);
  const view: ArgumentView = argumentView(c.arguments);
  const when = whenLines(c, now);
  const context = said(c);
  const lines = [
    `${c.agent} asks to run ${c.toolName} in run ${c.workflowId}:`,
    '',
    ...(context.length ? [...context.map(([label, text]) => `${label}: ${text}`), ''] : []),
    ...(c.preview ? [`Impact: ${c.preview.summary}`, ''] : []),
    ...argumentText(view),
    '',
    ...(when.length ? [`${when.join('. ')}.`, ''] : []),
    `Approve: ${links.approve}`,
    `Reject: ${links.reject}`,
    `View: ${links.view}`,
    '',
    'Each link opens a confirmation page first; nothing is decided until you confirm.',
  ];
  const body = [
    `<p>${escapeHtml(c.agent)} asks to run <b>${escapeHtml(c.toolName)}</b> in run <code>${escapeHtml(c.workflowId)}</code>:</p>`,
    ...context.map(([label, text]) => html`<p><b>${label}:</b> ${text}</p>`.text),
    ...(c.preview ? [`<p><b>Impact:</b> ${escapeHtml(c.preview.summary)}</p>`] : []),
    emailArgumentHtml(view).text,
    ...(when.length ? [`<p>${when.map(escapeHtml).join('<br>')}</p>`] : []),
    `<p><a href="${escapeHtml(links.approve)}">Approve…</a> · <a href="${escapeHtml(links.reject)}">Reject…</a> · <a href="${escapeHtml(links.view)}">View run</a></p>`,
    '<p>Each link opens a confirmation page first; nothing is decided until you confirm.</p>',
  ].join('\n');
  return { subject, text: lines.join('\n'), html: body };
}
