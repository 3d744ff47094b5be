// The reading commands of `countersign`: pending, show, result, audit, watch. Presenters over the client library's
// read methods (client/run/runReads.ts); every one takes --json.
import type { Command } from 'commander';
import type { RunResult, RunView } from '../contract/runViews';
import { guardrailText, quorumText } from '../core/approvals/decisionText';
import { relativeTime } from '../core/relativeTime';
import { type Connect } from './cliConnection';
import {
  argumentLines,
  auditTable,
  bold,
  ago,
  dim,
  itemLine,
  pendingTable,
  print,
  providerCallLines,
  printJson,
  printProblem,
  red,
  eventLine,
  finalOutputText,
  shownLine,
} from './terminalOutput';
import { CountersignError, NoWorkerError } from '../client/errors';
import { visible } from '../core/visibleText';
import { lazy } from './lazyLoads';
import type { PendingApproval } from '../contract/runViews';
import type { RunRecord } from '../client/run/runRecords';
import { recordLines, recordView, unservedRows, unservedTable } from './workerDownViews';
import { ASK_ONLY_SERVER } from '../core/run/gatewayRuns';

/** Where a call goes: an MCP server, or (a gateway's ask-only call) the hook or program that asked and acts. */
const whereFrom = (server: string) =>
  server === ASK_ONLY_SERVER ? 'asked by a hook or the approvals API' : `MCP ${server}`;

/** A run no worker serves: the line on stderr, and undefined (the caller answers from its RunRecord). */
const unserved = (err: unknown): undefined => {
  if (!(err instanceof NoWorkerError)) throw err;
  printProblem(err.message);
  return undefined;
};

export function addReadCommands(program: Command, connect: Connect): void {
  // ── pending ────────────────────────────────────────────────────────────────────────────────────────────────
  program
    .command('pending')
    .description('every pending approval in the namespace (runs found by HitlStatus, then each run asked)')
    .option('--agent <name>', 'only this agent')
    .option('--tool <name>', 'only this tool')
    .option('--json', 'machine-readable output')
    .action(async (o: { agent?: string; tool?: string; json?: boolean }) => {
      for (const [flag, value] of [
        ['--agent', o.agent],
        ['--tool', o.tool],
      ] as const)
        if (value !== undefined && !/^[\w.@-]+$/.test(value))
          throw new CountersignError(
            `${flag} must be a plain name (letters, digits, _ . @ -), got ${JSON.stringify(value)}`,
          );
      const { client } = await connect();
      // The global --task-queue narrows the listing to that queue's runs (as for approvals); without it, every queue.
      const taskQueue = program.opts<{ taskQueue?: string }>().taskQueue;
      const listing = await lazy.runReads().pendingListing(client, { agent: o.agent, tool: o.tool, taskQueue });
      const { calls: rows, unserved, unservedRuns } = listing;
      // Runs no worker serves cannot answer: listed from their search attributes and the ledger, and the line says why.
      for (const u of unserved)
        printProblem(
          `${u.workflowIds.length} waiting run(s) shown without their worker (${u.workflowIds.slice(0, 3).join(', ')}${u.workflowIds.length > 3 ? ', …' : ''}): ${u.line}`,
        );
      if (o.json) return printJson([...rows, ...unservedRows(unservedRuns)]);
      if (rows.length === 0 && unservedRuns.length === 0) return print('No approvals are pending.');
      if (rows.length)
        print(pendingTable(rows, (p) => [(p as PendingApproval & { workflowId: string }).workflowId, p.agentName]));
      if (unservedRuns.length)
        print(
          [
            ...(rows.length ? [''] : []),
            bold(
              'Waiting, no worker answers (from search attributes and the ledger; decisions are kept for the worker)',
            ),
            unservedTable(unservedRuns),
          ].join('\n'),
        );
    });

  program
    .command('show')
    .description('a run: status, pending calls with full arguments, decisions so far')
    .argument('<workflowId>')
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, o: { json?: boolean }) => {
      const { client, runner } = await connect();
      const s = await runner.describe(workflowId).catch(unserved);
      if (!s) {
        const [record] = await lazy.runRecords().runRecords(client, [workflowId]);
        return o.json ? printJson(record) : print(recordView(record!));
      }
      if (o.json) return printJson(s);
      const lines = [
        `${bold('Run')}       ${workflowId}`,
        // A run that failed before its agent was described (an unknown agent) has no version: no stray `@`.
        `${bold('Agent')}     ${shownLine(s.agent.name)}${s.agent.version ? `@${shownLine(s.agent.version)}` : ''}`,
        `${bold('Status')}    ${s.status}  (turn ${s.turn}/${s.maxTurns}, started ${ago(s.startedAt)}${s.continuedAsNew ? `, continued as new ${s.continuedAsNew}×` : ''})`,
      ];
      if (s.problem) lines.push(`${bold('Problem')}   ${red(shownLine(s.problem))}`);
      if (s.pending.length) {
        lines.push('', bold('Pending'));
        const now = Date.now();
        for (const p of s.pending) {
          const times = `asked ${relativeTime(p.requestedAt, now)}${p.expiresAt ? `, expires ${relativeTime(p.expiresAt, now)}` : ''}`;
          lines.push(
            shownLine(
              `  ${p.callId}  ${p.path ?? p.toolName}${p.mcpServer ? ` (${whereFrom(p.mcpServer)})` : ''}${p.agentName !== s.agent.name ? ` (agent ${p.agentName})` : ''}  ${times}${p.approvers ? `, approvers: ${p.approvers.join(', ')}` : ''}${p.quorum ? `, ${quorumText(p.quorum)}` : ''}${p.signedDecisions ? ', signed decisions only' : ''}`,
            ),
          );
          if (p.request) lines.push(`    ${dim('request:')} ${shownLine(p.request)}`);
          if (p.assistantSaid) lines.push(`    ${dim('assistant:')} ${shownLine(p.assistantSaid)}`);
          if (p.preview)
            lines.push(
              `    ${p.preview.failed ? red(shownLine(p.preview.summary)) : `impact: ${shownLine(p.preview.summary)}`}`,
              ...(p.preview.details ?? '')
                .split('\n')
                .filter(Boolean)
                .map((l) => `      ${shownLine(l)}`),
            );
          if (p.stale)
            lines.push(
              `    ${red(shownLine(`approved, but what it acts on changed before it ran (was ${JSON.stringify(p.stale.was)}, now ${JSON.stringify(p.stale.now)}): it did not run; decide again`))}`,
            );
          if (p.kind === 'uncertain')
            lines.push(
              `    ${red(shownLine(`may or may not have run: ${p.uncertainBecause ?? 'its attempt did not finish'}`))}; answer with countersign resolve ${workflowId} ${p.callId} --retry | --done <result> | --failed <error>`,
            );
          if (p.guardrail) lines.push(`    ${red(shownLine(guardrailText(p.guardrail)))}`);
          if (p.askedBecause) lines.push(`    ${red(shownLine(p.askedBecause))}`); // a predicate could not decide
          lines.push(...argumentLines(p.arguments).map((l) => `    ${l}`));
        }
      }
      if (s.audit.length)
        lines.push(
          '',
          bold(
            s.auditFrom ? `Decisions (newest ${s.audit.length}; all: countersign audit ${workflowId})` : 'Decisions',
          ),
          auditTable(s.audit),
        );
      lines.push(...providerCallLines(s.items));
      if (s.finalOutput !== undefined) lines.push('', bold('Final output'), finalOutputText(s));
      if (s.error) lines.push('', red(visible(`Failed (${s.errorType ?? 'error'}): ${s.error}`)));
      print(lines.join('\n'));
    });

  // ── result / audit / watch ─────────────────────────────────────────────────────────────────────────────────
  program
    .command('result')
    .description("a run's final output")
    .argument('<workflowId>')
    .option('--wait', 'wait for a running run to end')
    .option('--json', 'the whole result as JSON')
    .action(async (workflowId: string, o: { wait?: boolean; json?: boolean }) => {
      const { client, runner } = await connect();
      // With --wait, a run no worker serves is waited for all the same (the line says what it waits for); without,
      // it answers from what needs no worker: a running run's search attributes, a closed run's history.
      const s = await runner.describe(workflowId).catch((err: unknown) => {
        if (!(err instanceof NoWorkerError)) throw err;
        printProblem(o.wait ? `waiting: ${err.message}` : err.message);
        return undefined;
      });
      if (!s && !o.wait) {
        const [r] = (await lazy.runRecords().runRecords(client, [workflowId])) as [RunRecord];
        if (r.executionStatus === 'RUNNING')
          throw new CountersignError(
            `run ${workflowId} is still running (${r.status ?? 'Running'}${r.pendingTools.length ? `, waits on ${r.pendingTools.join(', ')}` : ''}); pass --wait to wait for it`,
          );
        await lazy.runRecords().closedOutcome(client, workflowId); // a failed run's failure, from its history
      }
      let final: RunView;
      if (s?.status === 'Completed' || s?.status === 'Failed') final = s;
      else {
        if (!o.wait)
          throw new CountersignError(
            `run ${workflowId} is still running (${s?.status}${s?.pending.length ? `, ${s.pending.length} pending` : ''}); pass --wait to wait for it`,
          );
        final = await client.workflow
          .getHandle(workflowId)
          .result()
          .then(
            (r) => r as RunResult,
            () => runner.describe(workflowId),
          );
      }
      if (final.status === 'Failed')
        throw new CountersignError(`run ${workflowId} failed (${final.errorType ?? 'error'}): ${final.error}`);
      if (o.json) return printJson(final);
      print(finalOutputText(final));
    });

  program
    .command('audit')
    .description('every decision of a run: who, what, when, why (running or closed)')
    .argument('<workflowId>')
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, o: { json?: boolean }) => {
      const { client, runner } = await connect();
      const s = await runner.describe(workflowId).catch(unserved); // a clear error for an unknown run
      if (!s) {
        const [{ calls }] = (await lazy.runRecords().runRecords(client, [workflowId])) as [RunRecord];
        if (o.json) return printJson(calls);
        return print(calls.length ? recordLines(calls).join('\n') : 'No decisions in the ledger.');
      }
      const audit = await runner.audit(workflowId);
      if (o.json) return printJson(audit);
      print([audit.length ? auditTable(audit) : 'No decisions yet.', ...providerCallLines(s.items)].join('\n'));
    });

  program
    .command('conversation')
    .description("a run's whole conversation, read in pages (running or closed)")
    .argument('<workflowId>')
    .option('--after <n>', 'start after this many items', (v) => Number(v), 0)
    .option('--json', 'one JSON item per line')
    .action(async (workflowId: string, o: { after: number; json?: boolean }) => {
      const { runner } = await connect();
      await runner.describe(workflowId); // a clear error for an unknown run
      for await (const item of runner.conversation(workflowId, { after: o.after })) {
        if (o.json) printJson(item, { oneLine: true });
        else print(itemLine(item));
      }
    });

  program
    .command('watch')
    .description(
      "print a run's events as they happen, from its start (or --after N), until it ends: exit 0 when it completes, 1 when it fails",
    )
    .argument('<workflowId>')
    .option('--json', 'one JSON event per line')
    .option('--after <seq>', 'start after this event', (v) => Number(v), 0)
    .option('--deltas', "also the model's text deltas while it writes (not part of the durable log)")
    .option('--interval <ms>', '(ignored: watch long-polls the run; kept for old scripts)')
    .action(async (workflowId: string, o: { json?: boolean; after: number; deltas?: boolean }) => {
      const { runner } = await connect();
      await runner.describe(workflowId); // a clear error for an unknown run
      for await (const e of runner.stream(workflowId, { after: o.after, deltas: !!o.deltas })) {
        if (o.json) printJson(e, { oneLine: true });
        else print(eventLine(e));
        if (e.type === 'run_failed')
          throw new CountersignError(`run ${workflowId} failed (${e.errorType ?? 'error'}): ${e.error}`);
      }
    });
}
