// What `show`, `pending` and `audit` print for runs no worker serves: their RunRecord (client/run/runRecords.ts), read
// from the search attributes and the ledger. The worker-down line goes to stderr beside it (the caller prints it).
import type { ApprovalRecord } from '../core/approvals/approvalHistory';
import type { RunRecord } from '../client/run/runRecords';
import { approvalLine } from './approvalsCommand';
import { ago, bold, dim, shownLine, table } from './terminalOutput';

/** The calls a record shows waiting (the ledger's, while the run runs). */
const waiting = (r: RunRecord): ApprovalRecord[] =>
  r.executionStatus === 'RUNNING' ? r.calls.filter((c) => c.status === 'pending') : [];

/** When the ledger names no waiting call but the search attributes say the run waits: its tools, without call ids. */
const toolsOnly = (r: RunRecord): string | undefined =>
  r.executionStatus === 'RUNNING' && !waiting(r).length && r.pendingTools.length
    ? `waits on ${r.pendingTools.join(', ')}${r.pendingSince ? ` since ${r.pendingSince}` : ''} (call ids not in the ledger${r.ledgerProblem ? `: ${r.ledgerProblem}` : ''})`
    : undefined;

/** `show` for a run no worker serves. */
export function recordView(r: RunRecord): string {
  const lines = [
    `${bold('Run')}       ${r.workflowId}`,
    `${bold('Agent')}     ${shownLine(r.agent ?? '-')}`,
    `${bold('Status')}    ${r.executionStatus === 'RUNNING' ? (r.status ?? 'Running') : r.executionStatus.toLowerCase()}  ${dim('(from search attributes and the ledger: no worker answers)')}`,
  ];
  const pending = waiting(r);
  if (pending.length || toolsOnly(r)) lines.push('', bold('Pending'));
  for (const c of pending) lines.push(shownLine(`  ${c.callId}  ${c.path ?? c.toolName}  asked ${ago(c.requestedAt)}`));
  const only = toolsOnly(r);
  if (only) lines.push(`  ${shownLine(only)}`);
  const decided = r.calls.filter((c) => c.status !== 'pending');
  if (decided.length) lines.push('', bold('Decisions'), ...recordLines(decided));
  return lines.join('\n');
}

/** `audit` for a run no worker serves: each call the ledger has, one line each. */
export function recordLines(records: ApprovalRecord[]): string[] {
  const width = Math.max(...records.map((c) => c.status.length));
  return records.map((c) => approvalLine(c, width));
}

/** `pending`'s rows for runs no worker serves: each waiting call, or the run's tools when the ledger names none. */
export function unservedTable(runs: RunRecord[]): string {
  const rows = runs.flatMap((r) => {
    const only = toolsOnly(r);
    const calls = waiting(r).map((c) => [r.workflowId, r.agent ?? c.agent, c.callId, c.toolName, ago(c.requestedAt)]);
    return only
      ? [...calls, [r.workflowId, r.agent ?? '-', '?', r.pendingTools.join(','), ago(r.pendingSince)]]
      : calls;
  });
  return table(
    ['WORKFLOW ID', 'AGENT', 'CALL ID', 'TOOL', 'WAITING SINCE'],
    rows.map((row) => row.map((c) => shownLine(c))),
  );
}

/** `pending --json`'s rows for runs no worker serves: what is known of each waiting call, marked `workerDown`. */
export function unservedRows(runs: RunRecord[]): Array<Record<string, unknown>> {
  return runs.flatMap((r) => [
    ...waiting(r).map((c) => ({
      workflowId: r.workflowId,
      agentName: r.agent ?? c.agent,
      callId: c.callId,
      toolName: c.toolName,
      requestedAt: c.requestedAt,
      ...(c.path ? { path: c.path } : {}),
      workerDown: true,
    })),
    ...(toolsOnly(r)
      ? [
          {
            workflowId: r.workflowId,
            agentName: r.agent,
            toolNames: r.pendingTools,
            requestedAt: r.pendingSince,
            workerDown: true,
          },
        ]
      : []),
  ]);
}
