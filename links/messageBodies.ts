// Ready-made messages for a waiting call: a Slack Block Kit body (POST it to chat.postMessage or an incoming
// webhook as is) and an email (subject, text, HTML). Every value from the run is escaped for its medium.
import { prettyArguments, summarizeCall } from '../core/approvals/callSummary';
import { escapeHtml } from './html';
import type { LinkAction } from './actionLinks';

export interface CallForPeople {
  workflowId: string;
  agent: string;
  callId: string;
  toolName: string;
  arguments: string;
  expiresAt?: string;
  preview?: { summary: string; details?: string };
}

const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * With `buttons` (tokens from actionLinks.ts buttonTokens), Approve / Reject are interactive buttons that Slack posts
 * to `countersign serve` (/slack/actions); a context line keeps the confirmation-page links for workspaces whose
 * app takes no interactivity. Without, Approve… / Reject… are link buttons.
 */
export function slackMessage(c: CallForPeople, links: Record<LinkAction, string>, buttons?: { approve: string; reject: string }): { text: string; blocks: unknown[] } {
  const title = `${c.agent} asks to run ${summarizeCall(c.toolName, c.arguments)}`;
  return {
    text: cut(title, 300),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: cut(`*${slackEscape(c.toolName)}* waits for approval (agent ${slackEscape(c.agent)}, run \`${slackEscape(c.workflowId)}\`)`, 2900) } },
      ...(c.preview ? [{ type: 'section', text: { type: 'mrkdwn', text: cut(`*Impact:* ${slackEscape(c.preview.summary)}`, 2900) } }] : []),
      { type: 'section', text: { type: 'mrkdwn', text: cut(`\`\`\`${slackEscape(prettyArguments(c.arguments))}\`\`\``, 2900) } },
      ...(c.expiresAt ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: `Expires ${slackEscape(c.expiresAt)}` }] }] : []),
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
          { type: 'button', style: 'primary', text: { type: 'plain_text', text: 'Approve…' }, url: links.approve, action_id: 'approve' },
          { type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Reject…' }, url: links.reject, action_id: 'reject' },
          view,
        ],
      },
    ];
  return [
    {
      type: 'actions',
      block_id: 'countersign_actions',
      elements: [
        { type: 'button', style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value: buttons.approve, action_id: 'countersign_approve' },
        { type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Reject' }, value: buttons.reject, action_id: 'countersign_reject' },
        view,
      ],
    },
    { type: 'context', block_id: 'countersign_links', elements: [{ type: 'mrkdwn', text: `Or on a confirmation page: <${links.approve}|Approve…> · <${links.reject}|Reject…>` }] },
  ];
}

export function emailMessage(c: CallForPeople, links: Record<LinkAction, string>): { subject: string; text: string; html: string } {
  const subject = cut(`Approval needed: ${c.toolName} (${c.agent})`, 200);
  const lines = [`${c.agent} asks to run ${c.toolName} in run ${c.workflowId}:`, '', ...(c.preview ? [`Impact: ${c.preview.summary}`, ''] : []), prettyArguments(c.arguments), '', ...(c.expiresAt ? [`Expires ${c.expiresAt}.`, ''] : []), `Approve: ${links.approve}`, `Reject: ${links.reject}`, `View: ${links.view}`, '', 'Each link opens a confirmation page first; nothing is decided until you confirm.'];
  const html = [
    `<p>${escapeHtml(c.agent)} asks to run <b>${escapeHtml(c.toolName)}</b> in run <code>${escapeHtml(c.workflowId)}</code>:</p>`,
    ...(c.preview ? [`<p><b>Impact:</b> ${escapeHtml(c.preview.summary)}</p>`] : []),
    `<pre>${escapeHtml(prettyArguments(c.arguments))}</pre>`,
    ...(c.expiresAt ? [`<p>Expires ${escapeHtml(c.expiresAt)}.</p>`] : []),
    `<p><a href="${escapeHtml(links.approve)}">Approve…</a> · <a href="${escapeHtml(links.reject)}">Reject…</a> · <a href="${escapeHtml(links.view)}">View run</a></p>`,
    '<p>Each link opens a confirmation page first; nothing is decided until you confirm.</p>',
  ].join('\n');
  return { subject, text: lines.join('\n'), html };
}
