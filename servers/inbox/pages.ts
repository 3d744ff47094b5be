// The inbox's pages: every pending call with its forms, a run's conversation and audit, a link's confirmation.
// Escaped by construction (html.ts); forms post back with a CSRF token; no inline script or style (the CSP forbids it).
import { prettyArguments } from '../../core/approvals/callSummary';
import { guardrailText, quorumText } from '../../core/approvals/decisionText';
import { argumentsMarkup, callContext, callTimes, quorumProgress } from './callDetails';
import type { ConversationItem } from '../../contract/items';
import type { AuditEntry, PendingApproval, RunSnapshot } from '../../contract/runViews';
import type { YesNo } from '../../contract/decisionWords';
import { html, type Markup } from '../../links/html';

export type InboxCall = PendingApproval & { workflowId: string };

/** What a failed form post shows next to its call, with what the person typed. */
export interface FormError {
  callId: string;
  message: string;
  editedArguments?: string;
}

const runPath = (workflowId: string) => `/runs/${encodeURIComponent(workflowId)}`;

export function layout(title: string, body: Markup, o: { approver?: string; script?: string } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Countersign</title><link rel="stylesheet" href="/assets/inbox.css">${o.script ? html`<script src="${o.script}" defer></script>` : ''}</head>
<body><header><a href="/" class="brand">Countersign</a><nav><a href="/">Pending</a> <a href="/reviews">Review</a> <a href="/history">History</a></nav><span class="who">${o.approver ? html`signed in as <b>${o.approver}</b>` : ''}</span></header>
<main>${body}</main></body></html>`.text;
}

function callForms(c: InboxCall, csrf: string, error?: FormError): Markup {
  const action = `${runPath(c.workflowId)}/decide`;
  // The fingerprint the person saw: the run refuses the decision if what the call acts on changed since.
  const seen =
    c.fingerprint !== undefined ? html`<input type="hidden" name="fingerprint" value="${c.fingerprint}">` : '';
  const hidden = html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="callId" value="${c.callId}">${seen}`;
  const reject = html`<form method="post" action="${action}" class="reject">${hidden}<input type="hidden" name="action" value="reject">
<input name="message" placeholder="Message for the agent (optional)" aria-label="Rejection message" maxlength="10000"><button class="danger">Reject</button></form>`;
  if (c.kind === 'input')
    return html`<form method="post" action="${action}" class="input">${hidden}<input type="hidden" name="action" value="input">
${(c.fields ?? []).map((f) => html`<label>${f} <input name="field:${f}" required></label>`)}<button class="primary">Provide and run</button></form>${reject}`;
  if (c.kind === 'uncertain')
    return html`<p class="uncertain" role="note">May or may not have run: ${c.uncertainBecause ?? 'its attempt did not finish'}. Running it again could do it twice.</p>
<div class="actions"><form method="post" action="${action}" class="retry">${hidden}<input type="hidden" name="action" value="retry"><button class="primary">Run it again</button></form></div>
<form method="post" action="${action}" class="done">${hidden}<input type="hidden" name="action" value="done"><label>It ran; the result the agent gets <textarea name="result" rows="3" required></textarea></label><button>It ran</button></form>
<form method="post" action="${action}" class="failed">${hidden}<input type="hidden" name="action" value="failed"><label>It did not run; what the agent is told <input name="error" required></label><button class="danger">It failed</button></form>`;
  if (c.kind === 'external')
    return html`<form method="post" action="${action}" class="result">${hidden}<input type="hidden" name="action" value="result">
<label>Result <textarea name="result" rows="3"></textarea></label><label>or error <input name="error"></label><button class="primary">Deliver</button></form>${reject}`;
  // A quorum approves the same arguments each time: no edits there (the run would refuse them).
  return html`<div class="actions">
<form method="post" action="${action}" class="approve">${hidden}<input type="hidden" name="action" value="approve"><button class="primary">Approve</button></form>
${reject}</div>
${
  c.quorum || c.kind === 'guardrail' // a guardrail's item has no arguments to edit (the run would refuse them)
    ? ''
    : html`<details${error?.editedArguments !== undefined ? html` open` : ''}><summary>Edit and approve</summary>
<form method="post" action="${action}" class="edit">${hidden}<input type="hidden" name="action" value="edit">
<textarea name="editedArguments" rows="8" aria-label="Edited arguments (JSON)">${error?.editedArguments ?? prettyArguments(c.arguments)}</textarea>
<button class="primary">Approve with these arguments</button></form></details>`
}`;
}

export function callCard(c: InboxCall, csrf: string, error?: FormError): Markup {
  return html`<article class="call" id="call-${c.callId}" data-call="${c.callId}">
<h2>${c.path ?? c.toolName} <small>${c.kind}</small></h2>
<p class="meta">agent <b>${c.agentName}</b> · run <a href="${runPath(c.workflowId)}">${c.workflowId}</a> · call ${c.callId} · ${callTimes(c)}</p>
${c.quorum ? quorumProgress(c.quorum) : ''}${c.signedDecisions ? html`<p class="signed">Signed decisions only</p>` : ''}
${callContext(c)}
${c.stale ? html`<p class="stale" role="note">Approved before what it acts on changed (it was <code>${c.stale.was}</code>, now <code>${c.stale.now}</code>): it did not run. Decide again.</p>` : ''}
${c.preview ? html`<div class="preview${c.preview.failed ? ' failed' : ''}"><p><b>Impact</b> ${c.preview.summary}</p>${c.preview.details ? html`<pre>${c.preview.details}</pre>` : ''}</div>` : ''}
${c.guardrail ? html`<p class="guardrail" role="note">${guardrailText(c.guardrail)}</p>` : ''}
${argumentsMarkup(c.arguments)}
${error ? html`<p class="error" role="alert">${error.message}</p>` : ''}
${callForms(c, csrf, error)}</article>`;
}

export function inboxPage(
  calls: InboxCall[],
  o: { csrf: string; approver: string; filter: { agent?: string; tool?: string }; error?: FormError; notice?: string },
): string {
  const body = html`<h1>Waiting for a person <small>${calls.length}</small></h1>
<form method="get" action="/" class="filter"><input name="agent" placeholder="agent" aria-label="agent" value="${o.filter.agent ?? ''}"><input name="tool" placeholder="tool" aria-label="tool" value="${o.filter.tool ?? ''}"><button>Filter</button></form>
${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
${calls.length ? calls.map((c) => callCard(c, o.csrf, o.error?.callId === c.callId ? o.error : undefined)) : html`<p class="empty">Nothing waits for a decision.</p>`}`;
  return layout('Inbox', body, { approver: o.approver });
}

function itemHtml(i: ConversationItem): Markup {
  if (i.type === 'message') return html`<li class="msg ${i.role}"><b>${i.role}</b> ${i.content}</li>`;
  if (i.type === 'function_call')
    return html`<li class="call">→ <b>${i.name}</b> <code>${i.arguments}</code> <small>${i.callId}</small></li>`;
  if (i.type === 'function_call_output') return html`<li class="out">← ${i.callId}: ${i.output}</li>`;
  return html`<li class="other">${i.type}</li>`;
}

const auditRow = (a: AuditEntry) =>
  html`<tr><td>${a.decidedAt}</td><td>${a.callId}</td><td>${a.toolName ?? '-'}</td><td>${a.decision}</td><td>${a.approver ?? '-'}${a.verified ? ' (signed)' : ''}</td><td>${a.via}</td><td>${a.message ?? a.reason ?? a.ignoredBecause ?? ''}</td></tr>`;

export function runPage(
  workflowId: string,
  s: RunSnapshot,
  o: { csrf: string; approver: string; error?: FormError; eventsAfter: number },
): string {
  const calls = s.pending.map((p) => ({ ...p, workflowId }));
  const body = html`<h1>${workflowId}</h1>
<p class="meta" id="run" data-run="${workflowId}" data-after="${o.eventsAfter}">agent <b>${s.agent.name}</b>@${s.agent.version} · <b class="status">${s.status}</b> · turn ${s.turn}/${s.maxTurns} · started ${s.startedAt}</p>
${s.error ? html`<p class="error">${s.errorType ?? 'Failed'}: ${s.error}</p>` : ''}
${calls.map((c) => callCard(c, o.csrf, o.error?.callId === c.callId ? o.error : undefined))}
${s.finalOutput !== undefined ? html`<h2>Final output</h2><pre>${s.finalOutput}</pre>` : ''}
<h2>Conversation${s.itemsFrom ? html` <small>(newest ${s.items.length})</small>` : ''}</h2><ol class="conversation">${s.items.map(itemHtml)}</ol>
<h2>Decisions</h2><table class="audit"><thead><tr><th>decided at</th><th>call</th><th>tool</th><th>decision</th><th>approver</th><th>via</th><th>note</th></tr></thead><tbody>${s.audit.map(auditRow)}</tbody></table>`;
  return layout(workflowId, body, { approver: o.approver, script: '/assets/run.js' });
}

export function linkPage(o: { csrf: string; approver: string; action: YesNo; call: InboxCall; token: string }): string {
  const c = o.call;
  const body = html`<h1>${o.action === 'approve' ? 'Approve' : 'Reject'} ${c.path ?? c.toolName}?</h1>
<p class="meta">agent <b>${c.agentName}</b> · run <a href="${runPath(c.workflowId)}">${c.workflowId}</a> · call ${c.callId}${c.quorum ? html` · ${quorumText(c.quorum)}` : ''}</p>
${argumentsMarkup(c.arguments)}
<form method="post" action="/links/${o.token}" class="confirm"><input type="hidden" name="_csrf" value="${o.csrf}">
${o.action === 'reject' ? html`<input name="message" placeholder="Message for the agent (optional)" maxlength="10000">` : ''}
<button class="${o.action === 'approve' ? 'primary' : 'danger'}">${o.action === 'approve' ? 'Approve' : 'Reject'} as ${o.approver}</button></form>`;
  return layout('Confirm', body, { approver: o.approver });
}

export function messagePage(title: string, message: string, approver?: string): string {
  return layout(
    title,
    html`<h1>${title}</h1><p class="message">${message}</p><p><a href="/">Back to the inbox</a></p>`,
    approver ? { approver } : {},
  );
}
