// Terminal output for the CLI: tables that fit the window, colour only on a TTY (and never with NO_COLOR),
// relative times. JSON output bypasses all of this.
import { shorten, summarizeCall } from '../domain/callSummary';
import type { ConversationItem } from '../domain/items';
import type { AuditEntry, PendingApproval } from '../workflows/messages';
import type { AgentRunResult } from './runner';

const colourOn = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (colourOn() ? `\u001b[${code}m${s}\u001b[0m` : s);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);

export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const s = Math.round((now - Date.parse(iso)) / 1000);
  const span = (n: number) => (n < 60 ? `${n}s` : n < 3600 ? `${Math.floor(n / 60)}m` : n < 86400 ? `${Math.floor(n / 3600)}h` : `${Math.floor(n / 86400)}d`);
  return s >= 0 ? `${span(s)} ago` : `in ${span(-s)}`;
}

/** A plain-text table; the column named `flexible` shrinks so the table fits the terminal. */
export function table(headers: string[], rows: string[][], flexible?: string): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const width = process.stdout.columns || 160;
  const flex = flexible ? headers.indexOf(flexible) : -1;
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (headers.length - 1);
  if (flex >= 0 && total > width) widths[flex] = Math.max(12, widths[flex]! - (total - width));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => shorten(c, widths[i]!).padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [bold(line(headers)), ...rows.map(line)].join('\n');
}

// ── What the commands print ──────────────────────────────────────────────────────────────────────────────
export const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
export const printJson = (value: unknown) => print(JSON.stringify(value, null, 2));

export function pendingTable(pending: PendingApproval[], withRun?: (p: PendingApproval) => string[]): string {
  const headers = [...(withRun ? ['WORKFLOW ID', 'AGENT'] : []), 'CALL ID', 'KIND', 'TOOL', 'ARGUMENTS', 'WAITING SINCE', 'EXPIRES'];
  const kind = (p: PendingApproval) => (p.kind === 'input' ? `input: ${(p.fields ?? []).join(',')}` : (p.kind ?? 'approval'));
  const rows = pending.map((p) => [...(withRun ? withRun(p) : []), p.callId, kind(p), p.toolName, p.arguments, ago(p.requestedAt), p.expiresAt ? ago(p.expiresAt) : '-']);
  return table(headers, rows, 'ARGUMENTS');
}

export function describeOutcome(result: AgentRunResult): string {
  if (result.interruptions.length === 0) return result.finalOutput ?? '';
  return [
    `${yellow('Waiting for approval')} — run ${bold(result.workflowId)}:`,
    pendingTable(result.interruptions),
    '',
    dim(`Decide with: countersign approve ${result.workflowId} <callId|--all>   or   countersign reject ${result.workflowId} <callId|--all> --message "why"`),
  ].join('\n');
}

export function auditLine(a: AuditEntry): string[] {
  const note = a.decision === 'ignored' ? (a.ignoredBecause ?? '') : a.decision === 'timed_out' ? `onTimeout ${a.onTimeout}` : (a.message ?? a.reason ?? '');
  const colour = a.decision.endsWith('approved') ? green : a.decision === 'ignored' ? dim : red;
  return [a.decidedAt, a.callId, a.toolName ?? '-', colour(a.decision), a.approver ?? '-', a.via, note];
}
export const auditTable = (audit: AuditEntry[]) => table(['DECIDED AT', 'CALL ID', 'TOOL', 'DECISION', 'APPROVER', 'VIA', 'REASON / MESSAGE'], audit.map(auditLine), 'REASON / MESSAGE');

export function itemLine(item: ConversationItem): string {
  if (item.type === 'message') return `${bold(item.role)}: ${item.content}`;
  if (item.type === 'function_call') return `${yellow('→')} ${summarizeCall(item.name, item.arguments, 100)} ${dim(`(call ${item.callId})`)}`;
  return `${green('←')} ${item.callId}: ${item.output}`;
}

