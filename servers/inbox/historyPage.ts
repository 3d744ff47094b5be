// The inbox's history view: calls already decided, across open and closed runs, newest first, with the filters that
// narrowed them (a GET form, so a filtered view is a link to share). A bad filter shows its one-line error instead.
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import { relativeTime } from '../../core/relativeTime';
import { html } from '../../links/html';
import { timeTag } from './callDetails';
import { layout } from './pages';

/** The filters as typed (strings; empty means unset). */
export interface HistoryFilter {
  status?: string;
  agent?: string;
  tool?: string;
  approver?: string;
  since?: string;
}

/** Most rows one page shows: the newest, with a line saying how many matched. */
export const HISTORY_ROWS = 500;

const runPath = (workflowId: string) => `/runs/${encodeURIComponent(workflowId)}`;

function row(r: ApprovalRecord, now: number) {
  const at = r.decidedAt ?? r.requestedAt;
  return html`<tr data-call="${r.callId}">
<td data-label="decided">${at ? timeTag(at, relativeTime(at, now)) : '-'}</td>
<td data-label="outcome" class="outcome-${r.status}">${r.status}${r.verified ? ' (signed)' : ''}</td>
<td data-label="tool">${r.path ?? r.toolName}</td><td data-label="agent">${r.agent}</td>
<td data-label="approver">${r.approvers.join(', ') || '-'}</td>
<td data-label="run"><a href="${runPath(r.workflowId)}">${r.workflowId}</a> <small>call ${r.callId}</small></td></tr>`;
}

function filterForm(f: HistoryFilter, statuses: readonly string[]) {
  const text = (name: keyof HistoryFilter, label: string, placeholder: string) =>
    html`<label>${label} <input name="${name}" value="${f[name] ?? ''}" placeholder="${placeholder}" maxlength="200"></label>`;
  return html`<form method="get" action="/history" class="filter" role="search">
<label>outcome <select name="status"><option value="">any</option>${statuses.map((s) => html`<option${s === f.status ? html` selected` : ''}>${s}</option>`)}</select></label>
${text('agent', 'agent', 'any agent')}${text('tool', 'tool', 'any tool')}${text('approver', 'approver', 'anyone')}${text('since', 'since', 'e.g. 24h, 7d')}
<button>Filter</button></form>`;
}

export function historyPage(o: {
  approver: string;
  filter: HistoryFilter;
  statuses: readonly string[];
  records?: ApprovalRecord[];
  /** How many match in all (default: the records given). */
  total?: number;
  error?: string;
  now?: number;
}): string {
  const now = o.now ?? Date.now();
  const records = [...(o.records ?? [])].reverse();
  const shown = records.slice(0, HISTORY_ROWS);
  const total = Math.max(o.total ?? 0, records.length);
  const results = o.error
    ? html`<p class="error" role="alert">${o.error}</p>`
    : records.length
      ? html`<p class="meta" role="status">${total > shown.length ? `the newest ${shown.length} of ${total} decided calls` : `${total} decided call${total === 1 ? '' : 's'}`}</p>
<div class="scroll"><table class="history"><thead><tr><th>decided</th><th>outcome</th><th>tool</th><th>agent</th><th>approver</th><th>run</th></tr></thead>
<tbody>${shown.map((r) => row(r, now))}</tbody></table></div>`
      : html`<p class="empty" role="status">No decided calls match.</p>`;
  return layout(
    'History',
    html`<h1>Decided calls</h1><p class="meta"><a href="/report">Compliance report</a></p>${filterForm(o.filter, o.statuses)}${results}`,
    {
      approver: o.approver,
    },
  );
}
