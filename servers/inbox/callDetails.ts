// What an approver reads on a pending call's card besides its buttons: when it was asked and when it expires (in
// words relative to now, the exact time in the <time> element), quorum progress, what the run was asked and what the
// assistant said just before the call, and the arguments laid out for people (core/approvals/argumentView.ts):
// `$` lines for commands, a marked diff for file edits, a key/value table for the rest. Escaped by html.ts.
import {
  type ArgumentView,
  type DiffLine,
  argumentView,
  commandLines,
  diffLineText,
} from '../../core/approvals/argumentView';
import { prettyArguments } from '../../core/approvals/callSummary';
import { quorumText } from '../../core/approvals/decisionText';
import { relativeTime } from '../../core/relativeTime';
import type { PendingApproval } from '../../contract/runViews';
import { html, type Markup } from '../../links/html';

/** A time in words ("asked 3 min ago"), the ISO time kept for machines and shown on hover. */
export const timeTag = (iso: string, words: string, cls = ''): Markup =>
  html`<time datetime="${iso}" title="${iso}"${cls ? html` class="${cls}"` : ''}>${words}</time>`;

/** "asked 3 min ago · expires in 2 h" (or "expired 5 min ago" once the timer is due). */
export function callTimes(c: Pick<PendingApproval, 'requestedAt' | 'expiresAt'>, now = Date.now()): Markup {
  const asked = timeTag(c.requestedAt, `asked ${relativeTime(c.requestedAt, now)}`, 'asked');
  if (!c.expiresAt) return asked;
  const due = Date.parse(c.expiresAt) <= now;
  return html`${asked} · ${timeTag(c.expiresAt, `${due ? 'expired' : 'expires'} ${relativeTime(c.expiresAt, now)}`, 'expires')}`;
}

/** "1 of 2 approvals (bob)" with a meter a glance can read. */
export function quorumProgress(q: NonNullable<PendingApproval['quorum']>): Markup {
  return html`<p class="quorum"><meter min="0" max="${q.needed}" value="${q.approvedBy.length}" aria-hidden="true"></meter> ${quorumText(q)}</p>`;
}

/** The run's request and the assistant's words before the call, when the run recorded them. */
export function callContext(c: Pick<PendingApproval, 'request' | 'assistantSaid'>): Markup | '' {
  if (!c.request && !c.assistantSaid) return '';
  return html`<dl class="context">${c.request ? html`<dt>Asked</dt><dd class="request">${c.request}</dd>` : ''}${c.assistantSaid ? html`<dt>The agent said</dt><dd class="said">${c.assistantSaid}</dd>` : ''}</dl>`;
}

const DIFF_CLASS: Record<DiffLine['mark'], string> = { '+': 'added', '-': 'removed', '@': 'hunk', ' ': 'context' };
const diffLine = (d: DiffLine) => html`<span class="${DIFF_CLASS[d.mark]}">${diffLineText(d)}</span>`;

function viewMarkup(v: ArgumentView): Markup {
  const commands = v.commands?.length
    ? html`<pre class="commands">${v.commands.map((c) => html`<span class="command">${commandLines(c).join('\n')}</span>`)}</pre>`
    : '';
  const files = (v.files ?? []).map(
    (f) =>
      html`<div class="file"><p class="file-op"><b>${f.operation}</b> <code>${f.path}</code></p>${f.diff.length ? html`<pre class="diff">${f.diff.map(diffLine)}</pre>` : ''}</div>`,
  );
  const fields = v.fields?.length
    ? html`<div class="scroll"><table class="fields"><tbody>${v.fields.map((f) => html`<tr><th scope="row">${f.key}</th><td>${f.value}</td></tr>`)}</tbody></table></div>`
    : '';
  const raw = v.raw !== undefined ? html`<pre class="raw">${v.raw}</pre>` : '';
  return html`${commands}${files}${fields}${raw}`;
}

/** The arguments for people, and the exact JSON the model produced behind a disclosure. */
export function argumentsMarkup(argumentsJson: string): Markup {
  return html`<div class="args">${viewMarkup(argumentView(argumentsJson))}</div>
<details class="json"><summary>Arguments as JSON</summary><pre class="arguments">${prettyArguments(argumentsJson)}</pre></details>`;
}
