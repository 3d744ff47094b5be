// `countersign approvals`: every call that waited for a person, across open and closed runs, with what it came
// to and who decided it. A presenter over client/approvals/approvalsReport.ts.
import { type Command, Option } from 'commander';
import { APPROVAL_STATUSES, type ApprovalRecord, type ApprovalStatus } from '../core/approvals/approvalHistory';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { clientIfReachable } from './ledgerConnection';
import { addApprovalsReportCommand } from './approvalsReportCommand';
import { UsageError, usage, usageExits } from './usageErrors';
import { visible } from '../core/visibleText';
import { dim, print, printJson, printProblem, toneColour } from './terminalOutput';
import type { Client } from '@temporalio/client';
import type { ApprovalsQuery } from '../client/approvals/approvalsReport';
import { type LedgerStore, ledgerInUse } from '../storage/ledger/ledgerStore';
import { type AuditDecision, type Tone, isAuditDecision, toneOf } from '../contract/decisionWords';

interface ApprovalsOptions {
  status?: ApprovalStatus;
  agent?: string;
  tool?: string;
  approver?: string;
  since?: string;
  until?: string;
  limit?: string;
  after?: string;
  json?: boolean;
  count?: boolean;
}

// Loaded when the command runs, as cliLazy does for the rest: `countersign --help` stays without the Temporal client.
const report = () => lazy.approvalsReport();

/** The statuses that are no audit outcome: a call still waiting, and an audit-only call's review. */
const OTHER_TONES: Record<Exclude<ApprovalStatus, AuditDecision>, Tone> = {
  pending: 'waiting',
  unreviewed: 'waiting',
  reviewed: 'good',
  flagged: 'bad',
};
const colourOf = (s: ApprovalStatus) => toneColour[isAuditDecision(s) ? toneOf(s) : OTHER_TONES[s]];

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
  const approvals = usageExits(program.command('approvals'))
    .description(
      'approvals across runs, open and closed, from the approvals ledger (no worker needed): what each call came to and who decided it; audit-only calls as unreviewed, reviewed or flagged',
    )
    .addOption(new Option('--status <status>', 'only calls with this outcome').choices(APPROVAL_STATUSES))
    .option('--agent <name>', "only this agent's calls")
    .option('--tool <name>', 'only this tool')
    .option('--approver <name>', 'only calls this person decided (or counted an approval on)')
    .option(
      '--since <when>',
      'only calls decided (or, still pending, requested) within this long (24h, 7d) or since an ISO date (2026-11-01)',
    )
    .option('--until <when>', 'only calls decided (or requested) before this: a duration ago or an ISO date')
    .option('--limit <n>', 'a page of at most n records; its last line is the cursor of the next (--after)')
    .option('--after <cursor>', 'the page after the one whose last line printed this cursor')
    .option('--json', 'machine-readable output (a page: {records, next})')
    .option('--count', 'print only how many')
    .action(async (o: ApprovalsOptions) => {
      const { checkCursor, ledgerQueryOf, limitOf } = report();
      // The global --task-queue narrows the report to that queue's runs; without it, every queue.
      const taskQueue = program.opts<{ taskQueue?: string }>().taskQueue;
      const query = { status: o.status, agent: o.agent, tool: o.tool, approver: o.approver, taskQueue };
      const f = { ...query, since: o.since, until: o.until };
      // Bad input fails here, before anything is read.
      const limit = usage(() => (ledgerQueryOf(f), checkCursor(o.after), limitOf(o.limit)));
      const paged = limit !== undefined || o.after !== undefined;
      if (o.count && paged) throw new UsageError('--count counts every match: leave out --limit and --after');
      const client = await clientIfReachable(
        connect,
        'reading the ledger alone (calls of runs that ended while they waited show as pending)',
      );
      const ledger = await lazy.ledgerAccess().openConfiguredLedger();
      try {
        await show(o, { ...f, ledger }, client, { limit, paged });
        // What the records leave out: runs on the queue whose history says they wrote to another ledger.
        for (const e of await report().approvalsElsewhere(client, { ...f, ledger })) printProblem(e.line);
      } finally {
        await ledger.close();
      }
    });
  addApprovalsReportCommand(approvals, program, connect);
}

type Read = ApprovalsQuery & { ledger: LedgerStore };

/** Reads and prints what `o` asks for from `f.ledger`. */
async function show(
  o: ApprovalsOptions,
  f: Read,
  client: Client | undefined,
  { limit, paged }: { limit: number | undefined; paged: boolean },
): Promise<void> {
  const { approvalsAcross, approvalsPage, complianceReport } = report();
  if (o.count) {
    // Counted by the ledger's aggregate (the report's), not by reading every record.
    const { status, ...rest } = f;
    const counted = await complianceReport(client, rest);
    const count = status ? (counted.byOutcome[status] ?? 0) : counted.total;
    return o.json ? printJson({ count }) : print(String(count));
  }
  const page = paged
    ? await approvalsPage(client, { ...f, limit, after: o.after }).catch((e: Error) => {
        throw /^--after /.test(e?.message ?? '') ? new UsageError(e.message) : e; // a cursor no page gave
      })
    : { records: await approvalsAcross(client, f) };
  const { records } = page;
  const next = 'next' in page ? page.next : undefined;
  if (o.json) return printJson(paged ? { records, ...(next ? { next } : {}) } : records);
  print(dim(ledgerInUse(f.ledger)));
  if (records.length === 0)
    return print(next ? `No approvals on this page; next: --after ${next}` : 'No approvals match.');
  const width = Math.max(...records.map((r) => r.status.length));
  for (const r of records) print(approvalLine(r, width));
  const byStatus = new Map<string, number>();
  for (const r of records) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  print(
    dim(
      `${records.length} approval${records.length === 1 ? '' : 's'} in ${new Set(records.map((r) => r.workflowId)).size} run(s): ${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ')}`,
    ),
  );
  if (paged) print(next ? `next: --after ${next}` : 'next: none (the last page)');
}
