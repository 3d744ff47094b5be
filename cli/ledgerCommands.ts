// `countersign ledger backfill | verify | prune`: the approvals ledger's upkeep. Backfill writes in what retained
// runs recorded before the ledger existed; verify recomputes the chains (and compares retained runs' histories),
// printing one line per problem and exiting 1; prune is the only delete. Bad input: one line, exit 2, nothing done.
import type { Command } from 'commander';
import { type LedgerProblem, ledgerInUse } from '../storage/ledger/ledgerStore';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { clientIfReachable } from './ledgerConnection';
import { dim, print, printJson, printProblem } from './terminalOutput';
import { usage, usageExits } from './usageErrors';
import { visible } from '../core/visibleText';

const where = (p: LedgerProblem) =>
  p.callId === undefined ? `seq ${p.seq}` : `call ${p.callId}${p.seq ? ` (seq ${p.seq})` : ''}`;
const problemLine = (p: LedgerProblem) =>
  visible(`${p.problem}: run ${p.workflowId} (chain ${p.chainId}) ${where(p)}: ${p.detail}`, { oneLine: true });

export function addLedgerCommands(program: Command, connect: Connect): void {
  const ledger = usageExits(program.command('ledger')).description(
    'the approvals ledger (COUNTERSIGN_LEDGER_URL): backfill it from retained runs, verify it, prune it',
  );
  const taskQueue = () => program.opts<{ taskQueue?: string }>().taskQueue;

  ledger
    .command('backfill')
    .description(
      "write in what retained runs recorded before the ledger existed (each run's audit is read through a query: a worker must serve its task queue); idempotent",
    )
    .option('--since <duration>', 'only runs running now or closed within this long, e.g. 30d')
    .option('--json', 'machine-readable output')
    .action(async (o: { since?: string; json?: boolean }) => {
      const { sinceIso } = lazy.reportPeriod();
      if (o.since !== undefined) usage(() => sinceIso(o.since!));
      const { client } = await connect();
      const { backfillLedger } = lazy.ledgerBackfill();
      const result = await backfillLedger(client, { since: o.since, taskQueue: taskQueue() });
      if (o.json) return printJson(result);
      print(
        `backfilled ${result.runs} run(s): ${result.written} record(s) written, ${result.skipped} already in the ledger`,
      );
    });

  ledger
    .command('verify')
    .description(
      "recompute every chain (a record changed or removed is named, one line each, exit 1) and compare retained runs' histories with it",
    )
    .option('--since <duration>', 'only chains with a record within this long, e.g. 30d')
    .option('--json', 'machine-readable output')
    .action(async (o: { since?: string; json?: boolean }) => {
      const { sinceIso } = lazy.reportPeriod();
      if (o.since !== undefined) usage(() => sinceIso(o.since!));
      const client = await clientIfReachable(connect, "checking the chains alone (no run's history compared)");
      const store = await lazy.ledgerAccess().openConfiguredLedger();
      try {
        // The global --task-queue narrows the comparison with history to that queue's runs; the chains are all checked.
        const result = await lazy
          .ledgerVerify()
          .verifyLedger(client, { since: o.since, taskQueue: taskQueue(), ledger: store });
        // Records written to another ledger are not this one's problems, but it cannot vouch for them: exit 1 too.
        if (result.problems.length || result.writtenElsewhere.length) process.exitCode = 1;
        if (o.json) return printJson(result);
        print(dim(ledgerInUse(store)));
        for (const p of result.problems) printProblem(problemLine(p));
        for (const e of result.writtenElsewhere) printProblem(`run ${e.workflowId} (chain ${e.chainId}): ${e.detail}`);
        const summary = `${result.chains} chain(s), ${result.records} record(s), ${result.comparedWithHistory} compared with their run's history`;
        const elsewhere = result.writtenElsewhere.length;
        if (result.problems.length) printProblem(`${result.problems.length} problem(s) in ${summary}`);
        if (elsewhere) printProblem(`${elsewhere} run(s) written to another ledger; ${summary}`);
        if (!result.problems.length && !elsewhere) print(dim(`ledger verified: ${summary}; no problems`));
      } finally {
        await store.close();
      }
    });

  ledger
    .command('prune')
    .description('delete the records of calls decided before a time (the only delete); later records still verify')
    .requiredOption(
      '--older-than <age>',
      'the age to keep: years, months, days or hours, e.g. 7y, 18mo, 90d (at least 1d)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { olderThan: string; json?: boolean }) => {
      const before = usage(() => lazy.reportPeriod().olderThanIso(o.olderThan));
      const store = await lazy.ledgerAccess().openConfiguredLedger();
      try {
        const removed = await store.prune(before);
        if (o.json) return printJson({ before, removed });
        print(`pruned ${removed} record(s) of calls decided before ${before} from ${store.describe}`);
      } finally {
        await store.close();
      }
    });
}
