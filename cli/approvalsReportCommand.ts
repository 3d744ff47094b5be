// `countersign approvals report`: the compliance report over a month (`--month 2026-11`) or a period (`--since` /
// `--until`: durations or ISO dates), from the approvals ledger: totals by outcome, approval rate, time to decision
// (p50, p95), by tool and by approver; `--json` or `--csv` for other tools. The approvals command's filters narrow it.
import type { Command } from 'commander';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { clientIfReachable } from './ledgerConnection';
import { print, printJson } from './terminalOutput';
import { reportCsv, reportText } from './reportFormats';
import { UsageError, usage } from './usageErrors';

interface ReportOptions {
  month?: string;
  since?: string;
  until?: string;
  json?: boolean;
  csv?: boolean;
  agent?: string;
  tool?: string;
  approver?: string;
  status?: string;
}

export function addApprovalsReportCommand(approvals: Command, program: Command, connect: Connect): void {
  approvals
    .command('report')
    .description(
      'the compliance report from the approvals ledger: totals by outcome, approval rate, time to decision p50/p95, by tool and by approver (--agent, --tool, --approver of approvals narrow it)',
    )
    .option('--month <YYYY-MM>', 'that month (UTC), e.g. 2026-11')
    .option('--since <when>', 'from this long ago (30d) or this ISO date (2026-11-01)')
    .option('--until <when>', 'to this long ago or this ISO date (exclusive)')
    .option('--json', 'the report as JSON')
    .option('--csv', 'the report as CSV: a header, then the totals, each tool and each approver')
    .action(async (_o: ReportOptions, cmd: Command) => {
      // `approvals` reads its own options before the subcommand's (--since, --json, filters): take both.
      const o = cmd.optsWithGlobals<ReportOptions & { taskQueue?: string }>();
      const { complianceReport, ledgerQueryOf } = lazy.approvalsReport();
      const { reportPeriod } = lazy.reportPeriod();
      if (o.json && o.csv) throw new UsageError('give --json or --csv, not both');
      if (o.status) throw new UsageError('the report counts every outcome: leave out --status');
      const query = { agent: o.agent, tool: o.tool, approver: o.approver, taskQueue: o.taskQueue };
      usage(() => (ledgerQueryOf(query), reportPeriod(o))); // bad input fails before anything is read
      const client = await clientIfReachable(
        connect,
        'reading the ledger alone (calls of runs that ended while they waited show as pending)',
      );
      const report = await complianceReport(client, { ...query, month: o.month, since: o.since, until: o.until });
      if (o.json) return printJson(report);
      if (o.csv) return void process.stdout.write(reportCsv(report));
      print(reportText(report));
    });
}
