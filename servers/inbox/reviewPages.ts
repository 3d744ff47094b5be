// The inbox's review queue: audit-only calls (needsApproval 'audit') that ran without waiting and wait for a review,
// each with "Looks fine" and "Flag" (with a note) forms; a refused review comes back inline, next to its call.
// Escaped by construction (html.ts); the forms post back with a CSRF token.
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import { prettyArguments } from '../../core/approvals/callSummary';
import { MAX_REVIEW_NOTE_CHARS } from '../../contract/reviewMessages';
import { html, type Markup } from '../../links/html';
import { layout } from './pages';

/** An unreviewed call, with its arguments when the run's audit has them. */
export type QueuedCall = ApprovalRecord & { arguments?: string };

/** What a refused review shows next to its call, with the note typed. */
export interface ReviewFormError {
  workflowId: string;
  callId: string;
  message: string;
  note?: string;
}

const runPath = (workflowId: string) => `/runs/${encodeURIComponent(workflowId)}`;

function reviewCard(c: QueuedCall, csrf: string, error?: ReviewFormError): Markup {
  const mine = error && error.workflowId === c.workflowId && error.callId === c.callId ? error : undefined;
  const hidden = html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="workflowId" value="${c.workflowId}"><input type="hidden" name="callId" value="${c.callId}">`;
  return html`<article class="call review" data-call="${c.callId}" data-run="${c.workflowId}">
<h2>${c.toolName} <small>unreviewed</small></h2>
<p class="meta">agent <b>${c.agent}</b> · run <a href="${runPath(c.workflowId)}">${c.workflowId}</a> · call ${c.callId} · ran at ${c.decidedAt ?? '-'}</p>
${c.arguments !== undefined ? html`<pre class="args">${prettyArguments(c.arguments)}</pre>` : ''}
${mine ? html`<p class="error" role="alert">${mine.message}</p>` : ''}
<div class="actions">
<form method="post" action="/reviews" class="reviewed">${hidden}<input type="hidden" name="action" value="ok"><button class="primary">Looks fine</button></form>
<form method="post" action="/reviews" class="flag">${hidden}<input type="hidden" name="action" value="flag">
<input name="note" value="${mine?.note ?? ''}" placeholder="Why it looks wrong" aria-label="Why it looks wrong" maxlength="${MAX_REVIEW_NOTE_CHARS}" required><button class="danger">Flag</button></form>
</div></article>`;
}

export function reviewPage(
  calls: QueuedCall[],
  o: { csrf: string; approver: string; error?: ReviewFormError; notice?: string },
): string {
  const body = html`<h1>To review <small>${calls.length}</small></h1>
<p class="meta">Calls of tools with needsApproval 'audit' ran without waiting; look at each and mark it fine or flag it. A review is final.</p>
${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
${o.error && !calls.some((c) => c.workflowId === o.error!.workflowId && c.callId === o.error!.callId) ? html`<p class="error" role="alert">${o.error.message}</p>` : ''}
${calls.length ? calls.map((c) => reviewCard(c, o.csrf, o.error)) : html`<p class="empty" role="status">Nothing to review.</p>`}`;
  return layout('Review', body, { approver: o.approver });
}
