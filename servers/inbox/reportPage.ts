// The inbox's compliance report: the numbers `countersign approvals report` prints (totals by outcome, approval
// rate, time to decision p50/p95, by tool and by approver) for a month or a period, read from the approvals ledger.
// A GET form (a report is a link to share); a bad month or period shows its one-line error instead.
import type { ComplianceReport, ReportGroup } from '../../storage/ledger/ledgerStore';
import { APPROVAL_STATUSES } from '../../core/approvals/approvalHistory';
import { html, type Markup } from '../../links/html';
import { layout } from './pages';

/** The period as typed (strings; empty means unset). */
export interface ReportFilter {
  month?: string;
  since?: string;
  until?: string;
}

const rate = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);

/** 850 ms, 12.3 s, 4 min, 2.5 h, 3.1 d. */
export function waitText(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

const outcomes = (g: ReportGroup) =>
  APPROVAL_STATUSES.filter((s) => g.byOutcome[s])
    .map((s) => `${g.byOutcome[s]} ${s}`)
    .join(', ') || 'none';

function groupTable(title: string, groups: Record<string, ReportGroup>): Markup {
  const names = Object.keys(groups).sort((a, b) => groups[b]!.total - groups[a]!.total || a.localeCompare(b));
  if (!names.length) return html``;
  return html`<h2>By ${title}</h2><div class="scroll"><table class="history report" data-group="${title}"><thead><tr><th>${title}</th><th>calls</th><th>approval rate</th><th>p50</th><th>p95</th><th>outcomes</th></tr></thead>
<tbody>${names.map((n) => {
    const g = groups[n]!;
    return html`<tr data-name="${n}"><td data-label="${title}">${n}</td><td data-label="calls">${g.total}</td><td data-label="approval rate">${rate(g.approvalRate)}</td>
<td data-label="p50">${waitText(g.timeToDecisionMs.p50)}</td><td data-label="p95">${waitText(g.timeToDecisionMs.p95)}</td><td data-label="outcomes">${outcomes(g)}</td></tr>`;
  })}</tbody></table></div>`;
}

function periodForm(f: ReportFilter): Markup {
  const text = (name: keyof ReportFilter, label: string, placeholder: string) =>
    html`<label>${label} <input name="${name}" value="${f[name] ?? ''}" placeholder="${placeholder}" maxlength="40"></label>`;
  return html`<form method="get" action="/report" class="filter" role="search">
${text('month', 'month', 'e.g. 2026-11')}${text('since', 'or since', 'e.g. 30d, 2026-11-01')}${text('until', 'until', 'e.g. 2026-12-01')}
<button>Show</button></form>`;
}

export function reportPage(o: {
  approver: string;
  filter: ReportFilter;
  report?: ComplianceReport;
  error?: string;
}): string {
  const r = o.report;
  const body = o.error
    ? html`<p class="error" role="alert">${o.error}</p>`
    : r
      ? html`<p class="meta" role="status">${r.sinceIso ?? 'the first record'} to ${r.untilIso ?? 'now'}: <b data-total>${r.total}</b> call${r.total === 1 ? '' : 's'}</p>
<dl class="report-totals"><dt>outcomes</dt><dd data-outcomes>${outcomes(r)}</dd><dt>approval rate</dt><dd data-rate>${rate(r.approvalRate)}</dd>
<dt>time to decision</dt><dd data-wait>p50 ${waitText(r.timeToDecisionMs.p50)}, p95 ${waitText(r.timeToDecisionMs.p95)}</dd></dl>
${groupTable('tool', r.byTool)}${groupTable('approver', r.byApprover)}`
      : html``;
  return layout(
    'Report',
    html`<h1>Compliance report</h1><p class="meta">From the approvals ledger; the same numbers as <code>countersign approvals report</code>. <a href="/history">Decided calls</a></p>${periodForm(o.filter)}${body}`,
    { approver: o.approver },
  );
}
