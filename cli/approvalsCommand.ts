// `countersign approvals`: every call that waited for a person, across open and closed runs, with what it came
// to and who decided it. A presenter over client/approvals/approvalsReport.ts.
import { type Command, Option } from 'commander';
import { APPROVAL_STATUSES, type ApprovalRecord, type ApprovalStatus } from '../core/approvals/approvalHistory';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { visible } from '../core/visibleText';
import { dim, green, print, printJson, red, yellow } from './terminalOutput';

interface ApprovalsOptions {
  status?: ApprovalStatus;
  agent?: string;
  tool?: string;
  approver?: string;
  since?: string;
  json?: boolean;
  count?: boolean;
}

// Loaded when the command runs, as cliLazy does for the rest: `countersign --help` stays without the Temporal client.
const report = () => lazy.approvalsReport();

const colourOf = (s: ApprovalStatus) =>
  s === 'pending' || s === 'unreviewed'
    ? yellow
    : s === 'reviewed'
      ? green
      : s.endsWith('approved') ||
          s === 'granted' ||
          s === 'input_provided' ||
          s === 'result_provided' ||
          s === 'timed_out'
        ? green
        : s === 'cancelled'
          ? dim
          : red;

/** `approved  send_email (call c1) in run-123 by ann, bob at 2026-…`; a review: `flagged  refund (call c1) in run-9 by ann at 2026-…: "too large"` */
export function approvalLine(r: ApprovalRecord, width: number): string {
  const who = r.approvers.length ? ` by ${r.approvers.join(', ')}` : '';
  const when = r.reviewedAt
    ? ` at ${r.reviewedAt}${r.note ? `: ${JSON.stringify(r.note)}` : ''}`
    : r.decidedAt
      ? ` at ${r.decidedAt}`
      : r.requestedAt
        ? ` requested ${r.requestedAt}`
        : '';
  const notes = [...(r.verified ? ['signed'] : []), ...(r.path ? [r.path] : [])];
  const shown = (text: string) => visible(text, { oneLine: true }); // a run's words (tool, note, path) shown, never obeyed
  return `${colourOf(r.status)(r.status.padEnd(width))}  ${shown(`${r.toolName} (call ${r.callId}) in ${r.workflowId}${who}${when}`)}${notes.length ? dim(` [${shown(notes.join('; '))}]`) : ''}`;
}

export function addApprovalsCommand(program: Command, connect: Connect): void {
  program
    .command('approvals')
    .description(
      "approvals across runs, open and closed: what each call came to and who decided it (from each run's audit log); audit-only calls as unreviewed, reviewed or flagged",
    )
    .addOption(new Option('--status <status>', 'only calls with this outcome').choices(APPROVAL_STATUSES))
    .option('--agent <name>', "only this agent's calls")
    .option('--tool <name>', 'only this tool')
    .option('--approver <name>', 'only calls this person decided (or counted an approval on)')
    .option('--since <duration>', 'only calls decided (or, still pending, requested) within this long, e.g. 24h, 7d')
    .option('--json', 'machine-readable output')
    .option('--count', 'print only how many')
    .action(async (o: ApprovalsOptions) => {
      const { approvalsAcross, sinceIso } = report();
      if (o.since !== undefined) sinceIso(o.since); // a bad duration fails before connecting
      // The global --task-queue narrows the report to that queue's runs; without it, every queue.
      const taskQueue = program.opts<{ taskQueue?: string }>().taskQueue;
      const { client } = await connect();
      const records = await approvalsAcross(client, {
        status: o.status,
        agent: o.agent,
        tool: o.tool,
        approver: o.approver,
        since: o.since,
        taskQueue,
      });
      if (o.count) return o.json ? printJson({ count: records.length }) : print(String(records.length));
      if (o.json) return printJson(records);
      if (records.length === 0) return print('No approvals match.');
      const width = Math.max(...records.map((r) => r.status.length));
      for (const r of records) print(approvalLine(r, width));
      const byStatus = new Map<string, number>();
      for (const r of records) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      print(
        dim(
          `${records.length} approval${records.length === 1 ? '' : 's'} in ${new Set(records.map((r) => r.workflowId)).size} run(s): ${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ')}`,
        ),
      );
    });
}
