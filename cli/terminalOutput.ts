// Terminal output for the CLI: tables that fit the window, colour only on a TTY (and never with NO_COLOR),
// relative times. Text from a run reaches the terminal only through visible() (core/visibleText.ts): its fields are
// escaped where they are laid out, and print() escapes whatever else it writes but for this file's own colours, so no
// command can pass an escape sequence or a bidirectional override through. JSON output bypasses all of this.
import { quorumText } from '../core/approvals/decisionText';
import { shorten, summarizeCall } from '../core/approvals/callSummary';
import { type DiffLine, argumentText, argumentView, diffLineText } from '../core/approvals/argumentView';
import { relativeTime } from '../core/relativeTime';
import { visible } from '../core/visibleText';
import type { ConversationItem } from '../contract/items';
import { providerCallOf, providerCallsIn } from '../core/run/providerCalls';
import type { RunEvent } from '../contract/runEvents';
import type { AuditEntry, PendingApproval } from '../contract/runViews';
import type { AgentRunResult } from '../client/run/runner';
import { type Tone, toneOf } from '../contract/decisionWords';
import { lazy } from './lazyLoads';

// NO_COLOR is read when the first colour would be painted (so `countersign --help` loads no configuration).
let noColor: boolean | undefined;
const colourOn = () => Boolean(process.stdout.isTTY) && !(noColor ??= Boolean(lazy.config().setting('NO_COLOR')));
const paint = (code: number) => (s: string) => (colourOn() ? `\u001b[${code}m${s}\u001b[0m` : s);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);
/** The colour of each tone of contract/decisionWords.ts's outcome table: every outcome is painted through this. */
export const toneColour: Record<Tone, (s: string) => string> = { good: green, bad: red, neutral: dim, waiting: yellow };
/** The escape sequences paint() writes: the only ones print() lets through, and only while colour is on. */
// eslint-disable-next-line no-control-regex -- our own escape sequences are the point
const OWN_COLOURS = /(\u001b\[(?:0|1|2|31|32|33)m)/;

/** Text as the terminal gets it: every hidden character shown (newlines and tabs stay), but for our own colours. */
export function terminalText(text: string, colours = colourOn()): string {
  if (!colours) return visible(text);
  return text
    .split(OWN_COLOURS)
    .map((part, i) => (i % 2 ? part : visible(part)))
    .join('');
}

export function ago(iso: string | undefined, now = Date.now()): string {
  return iso ? relativeTime(iso, now, { compact: true }) : '-';
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
  process.stdout.write(`${terminalText(text)}\n`);
};
/** JSON as it is (JSON.stringify escapes control characters itself): `--json` output is plain JSON. */
export const printJson = (value: unknown, { oneLine = false } = {}) => {
  process.stdout.write(`${oneLine ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
};
/** A one-line message on stderr, `countersign: …` (an error, a warning): a run's words in it shown, on one line. */
export const printProblem = (message: string): void => {
  process.stderr.write(`countersign: ${visible(message, { oneLine: true })}\n`);
};
/** A run's text for a line of its own: hidden characters shown, newlines too. */
export const shownLine = (text: string) => visible(text, { oneLine: true });
/** A run's text shortened for a line: hidden characters shown first, so the cut never hides one. */
const short = (text: string, max: number) => shorten(visible(text), max);
const callText = (toolName: string, argumentsJson: string, max: number) =>
  visible(summarizeCall(toolName, argumentsJson, max));

export function pendingTable(pending: PendingApproval[], withRun?: (p: PendingApproval) => string[]): string {
  const headers = [
    ...(withRun ? ['WORKFLOW ID', 'AGENT'] : []),
    'CALL ID',
    'KIND',
    'TOOL',
    'ARGUMENTS',
    'WAITING SINCE',
    'EXPIRES',
  ];
  const kind = (p: PendingApproval) =>
    p.kind === 'input'
      ? `input: ${(p.fields ?? []).join(',')}`
      : p.kind === 'uncertain'
        ? 'uncertain: may or may not have run'
        : p.quorum
          ? `approval: ${quorumText(p.quorum)}`
          : p.kind;
  const rows = pending.map((p) =>
    [
      ...(withRun ? withRun(p) : []),
      p.callId,
      kind(p),
      p.toolName,
      p.arguments,
      ago(p.requestedAt),
      p.expiresAt ? ago(p.expiresAt) : '-',
    ].map((c) => shownLine(c)),
  );
  return table(headers, rows, 'ARGUMENTS');
}

/** A pending call's arguments as a person should read them (core/approvals/argumentView.ts): edit headers in bold, diffs in colour. */
export function argumentLines(argumentsJson: string): string[] {
  const { commands, files, ...rest } = argumentView(argumentsJson);
  const paint = (d: DiffLine) => (d.mark === '+' ? green : d.mark === '-' ? red : (t: string) => t)(diffLineText(d));
  const edits = (files ?? []).flatMap((f) => [bold(`${f.operation} ${f.path}`), ...f.diff.map(paint)]);
  return [...argumentText({ commands }), ...edits, ...argumentText(rest)];
}

/** A run's final output as printed: an outputType's JSON pretty-printed, text as it is. */
export function finalOutputText(view: { finalOutput?: string; structuredOutput?: true }): string {
  if (view.finalOutput === undefined) return '';
  if (!view.structuredOutput) return visible(view.finalOutput);
  try {
    return visible(JSON.stringify(JSON.parse(view.finalOutput), null, 2));
  } catch {
    return visible(view.finalOutput); // an answer that failed its type never completes; print what there is
  }
}

export function describeOutcome(result: AgentRunResult): string {
  if (result.interruptions.length === 0) return finalOutputText(result.snapshot);
  return [
    `${yellow('Waiting for approval')} — run ${bold(result.workflowId)}:`,
    pendingTable(result.interruptions),
    '',
    dim(
      `Decide with: countersign approve ${result.workflowId} <callId|--all>   or   countersign reject ${result.workflowId} <callId|--all> --message "why"`,
    ),
  ].join('\n');
}

export function auditLine(a: AuditEntry): string[] {
  const note =
    a.decision === 'ignored'
      ? (a.ignoredBecause ?? '')
      : a.decision === 'timed_out' || a.decision === 'expired'
        ? `onTimeout ${a.onTimeout}`
        : a.decision === 'extended'
          ? `by ${a.extendedBy}, now expires ${a.expiresAt}`
          : a.quorum && a.decision === 'approval_counted'
            ? quorumText(a.quorum)
            : (a.message ?? a.reason ?? '');
  const colour = toneColour[toneOf(a.decision)];
  const approver = a.approver ? `${a.approver}${a.verified ? ' (signed)' : ''}` : '-';
  return [
    ...[a.decidedAt, a.callId, a.toolName ?? '-'].map((c) => shownLine(c)),
    colour(shownLine(a.decision)),
    ...[approver, a.via, note].map((c) => shownLine(c)),
  ];
}
export const auditTable = (audit: AuditEntry[]) =>
  table(
    ['DECIDED AT', 'CALL ID', 'TOOL', 'DECISION', 'APPROVER', 'VIA', 'REASON / MESSAGE'],
    audit.map(auditLine),
    'REASON / MESSAGE',
  );

/** The calls the provider ran within its turns (hosted tools, hosted MCP): for `show` and `audit`, never gated. */
export function providerCallLines(items: readonly ConversationItem[]): string[] {
  const calls = providerCallsIn(items);
  if (!calls.length) return [];
  return [
    '',
    bold('Provider-executed (run by the model provider within a turn; no person could gate them)'),
    ...calls.map(
      (c) =>
        `  ${shownLine(c.callId)}  ${callText(c.server ? `${c.server}: ${c.toolName}` : c.toolName, c.arguments, 100)}${c.status ? dim(` (${shownLine(c.status)})`) : ''}`,
    ),
  ];
}

/** One conversation item, for `countersign conversation`. */
export function itemLine(item: ConversationItem): string {
  if (item.type === 'message') return `${bold(shownLine(item.role))}: ${visible(item.content)}`;
  if (item.type === 'function_call')
    return `${yellow('→')} ${callText(item.name, item.arguments, 100)} ${dim(`(call ${shownLine(item.callId)})`)}`;
  if (item.type === 'mcp_approval_request')
    return `${yellow('→')} ${shownLine(item.serverLabel)}: ${callText(item.name, item.arguments, 100)} ${dim(`(hosted MCP, asks approval ${shownLine(item.id)})`)}`;
  if (item.type === 'mcp_approval_response')
    return `${item.approve ? green('←') : red('←')} ${shownLine(item.approvalRequestId)}: ${item.approve ? 'approved' : `rejected${item.reason ? `: ${visible(item.reason)}` : ''}`}`;
  const call = providerCallOf(item);
  if (call)
    return `${yellow('→')} ${callText(call.server ? `${call.server}: ${call.toolName}` : call.toolName, call.arguments, 100)} ${dim(`(provider-executed ${shownLine(call.callId)}${call.status ? `, ${shownLine(call.status)}` : ''})`)}`;
  if (item.type === 'provider_item')
    return dim(
      `(${shownLine(String(item.item.type))}${item.item.name ? ` ${shownLine(String(item.item.name))}` : ''}${item.item.output ? `: ${visible(String(item.item.output))}` : ''})`,
    );
  return `${green('←')} ${shownLine(item.callId)}: ${visible(item.output)}`;
}

/** One line per run event, for `countersign watch`. */
export function eventLine(e: RunEvent): string {
  const head = `${dim(`${e.at.slice(11, 19)} #${e.seq}`)} ${e.path ? dim(`${shownLine(e.path)}: `) : ''}`;
  switch (e.type) {
    case 'run_started':
      return `${head}${bold('run started')} ${shownLine(e.agentName)}: ${short(e.input, 100)}`;
    case 'turn_started':
      return `${head}${dim(`turn ${e.turn}`)}`;
    case 'model_text_delta':
      return `${head}${dim('…')} ${visible(e.delta)}`;
    case 'tool_called':
      return `${head}${yellow('→')} ${callText(e.toolName, e.arguments, 100)} ${dim(`(call ${shownLine(e.callId)}${e.needsPerson ? ', needs a person' : ''}${e.providerExecuted ? ', provider-executed' : ''})`)}`;
    case 'approval_requested':
      return `${head}${yellow('waiting')} ${callText(e.pending.toolName, e.pending.arguments, 80)} ${dim(`(call ${shownLine(e.callId)}, ${e.pending.kind})`)}`;
    case 'decision':
      return `${head}${toneColour[toneOf(e.outcome)](e.outcome)} ${shownLine(e.callId)}${e.approver ? ` by ${shownLine(e.approver)}` : ''} ${dim(`via ${shownLine(e.via)}`)}${e.message ? `: ${visible(e.message)}` : ''}`;
    case 'tool_output':
      return `${head}${green('←')} ${shownLine(e.callId)}: ${short(e.output, 120)}`;
    case 'handoff':
      return `${head}handoff ${shownLine(e.from)} → ${shownLine(e.to)}`;
    case 'message_output':
      return `${head}${bold(shownLine(e.agentName))}: ${visible(e.text)}`;
    case 'run_paused':
      return `${head}${yellow('paused')}, waiting for a person: ${shownLine(e.pending.join(', '))}`;
    case 'run_completed':
      return `${head}${green('completed')}: ${visible(e.finalOutput)}`;
    case 'run_failed':
      return `${head}${red('failed')} (${shownLine(e.errorType ?? 'error')}): ${visible(e.error)}`;
  }
}
