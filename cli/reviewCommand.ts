// `countersign review`: mark an audit-only call (a tool with needsApproval 'audit', which ran without waiting)
// `reviewed` or `flagged`, over client/approvals/reviews.ts (loaded when the command runs). Bad input is one line and
// exit 1 before anything is sent.
import type { Command } from 'commander';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { print, printJson } from './terminalOutput';
import { CountersignError } from '../client/errors';
import { decidingAs } from '../client/approvals/approver';

interface ReviewOptions {
  ok?: boolean;
  flag?: string;
  as?: string;
  json?: boolean;
}

/** The verdict and note the flags say: exactly one of --ok and --flag. */
export function verdictOf(o: ReviewOptions): { verdict: 'reviewed' | 'flagged'; note?: string } {
  if (o.ok && o.flag !== undefined) throw new CountersignError('give either --ok or --flag "why", not both');
  if (o.ok) return { verdict: 'reviewed' };
  if (o.flag === undefined) throw new CountersignError('say what the review found: --ok, or --flag "why"');
  if (!o.flag.trim())
    throw new CountersignError('--flag needs a note saying why, e.g. --flag "refund larger than the order"');
  return { verdict: 'flagged', note: o.flag };
}

export function addReviewCommand(program: Command, connect: Connect): void {
  program
    .command('review')
    .description(
      'review an audit-only call that ran without waiting: --ok (it looks fine) or --flag "why"; the review is recorded with your name (list them with: countersign approvals --status unreviewed|reviewed|flagged)',
    )
    .argument('<workflowId>')
    .argument('<callId>')
    .option('--ok', 'the call looks fine: mark it reviewed')
    .option('--flag <why>', 'the call looks wrong: flag it, with a note saying why')
    .option('--as <name>', 'reviewer, for the record (default: your OS user)')
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, callId: string, o: ReviewOptions) => {
      const { verdict, note } = verdictOf(o);
      if (!decidingAs(o.as)) throw new CountersignError('name the reviewer with --as (the OS user is unknown)');
      const { client, runner, config } = await connect();
      const reviewer = decidingAs(o.as, { mixedScripts: config?.mixedScriptNames ?? false })!; // and mixed scripts
      const review = await lazy.reviews().reviewCall(client, runner.taskQueue, {
        workflowId,
        callId,
        verdict,
        ...(note !== undefined ? { note } : {}),
        reviewer,
      });
      if (o.json) return printJson(review);
      print(`${review.verdict} ${callId} in ${workflowId} as ${review.reviewer}`);
    });
}
