// The compliance report as `countersign approvals report` prints it: text (totals, rate, p50/p95, by tool, by
// approver) or CSV (one header, then one row for the totals, each tool and each approver). Pure.
import { APPROVAL_STATUSES } from '../core/approvals/approvalHistory';
import type { ComplianceReport, ReportGroup } from '../storage/ledger/ledgerStore';
import { visible } from '../core/visibleText';

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const OUTCOMES = APPROVAL_STATUSES;
export const REPORT_CSV_HEADER = [
  'group',
  'name',
  'total',
  ...OUTCOMES,
  'approval_rate',
  'time_to_decision_p50_ms',
  'time_to_decision_p95_ms',
];

function csvRow(group: string, name: string, g: ReportGroup): string {
  return [
    group,
    name,
    g.total,
    ...OUTCOMES.map((s) => g.byOutcome[s] ?? 0),
    g.approvalRate === null ? null : Number(g.approvalRate.toFixed(6)),
    g.timeToDecisionMs.p50 === null ? null : Math.round(g.timeToDecisionMs.p50),
    g.timeToDecisionMs.p95 === null ? null : Math.round(g.timeToDecisionMs.p95),
  ]
    .map(csvField)
    .join(',');
}

export function reportCsv(r: ComplianceReport): string {
  const rows = [REPORT_CSV_HEADER.join(','), csvRow('total', '', r)];
  for (const [tool, g] of Object.entries(r.byTool).sort(([a], [b]) => a.localeCompare(b)))
    rows.push(csvRow('tool', tool, g));
  for (const [who, g] of Object.entries(r.byApprover).sort(([a], [b]) => a.localeCompare(b)))
    rows.push(csvRow('approver', who, g));
  return `${rows.join('\r\n')}\r\n`;
}

/** 850ms, 12.3s, 4m 5s, 2h 10m, 3d 4h. */
export function durationText(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const [m, h, d] = [Math.floor(ms / 60_000), Math.floor(ms / 3_600_000), Math.floor(ms / 86_400_000)];
  if (ms < 3_600_000) return `${m}m ${Math.floor((ms % 60_000) / 1000)}s`;
  if (ms < 86_400_000) return `${h}h ${m % 60}m`;
  return `${d}d ${h % 24}h`;
}

export const rateText = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

const outcomesText = (g: ReportGroup) =>
  OUTCOMES.filter((s) => g.byOutcome[s])
    .map((s) => `${g.byOutcome[s]} ${s}`)
    .join(', ') || 'none';

function table(title: string, groups: Record<string, ReportGroup>): string[] {
  const names = Object.keys(groups).sort((a, b) => groups[b]!.total - groups[a]!.total || a.localeCompare(b));
  if (!names.length) return [];
  const shown = names.map((n) => visible(n, { oneLine: true })); // names come from runs: shown, never obeyed
  const width = Math.max(title.length, ...shown.map((n) => n.length));
  const head = `${title.toUpperCase().padEnd(width)}  ${'CALLS'.padStart(7)}  ${'RATE'.padStart(6)}  ${'P50'.padStart(8)}  ${'P95'.padStart(8)}  OUTCOMES`;
  return [
    '',
    head,
    ...names.map((n, i) => {
      const g = groups[n]!;
      return `${shown[i]!.padEnd(width)}  ${String(g.total).padStart(7)}  ${rateText(g.approvalRate).padStart(6)}  ${durationText(g.timeToDecisionMs.p50).padStart(8)}  ${durationText(g.timeToDecisionMs.p95).padStart(8)}  ${outcomesText(g)}`;
    }),
  ];
}

export function reportText(r: ComplianceReport): string {
  const period = `${r.sinceIso ?? 'the first record'} to ${r.untilIso ?? 'now'}`;
  return [
    `Approvals from ${period}: ${r.total} call${r.total === 1 ? '' : 's'}`,
    `outcomes: ${outcomesText(r)}`,
    `approval rate: ${rateText(r.approvalRate)} of decided calls`,
    `time to decision: p50 ${durationText(r.timeToDecisionMs.p50)}, p95 ${durationText(r.timeToDecisionMs.p95)}`,
    ...table('tool', r.byTool),
    ...table('approver', r.byApprover),
  ].join('\n');
}
