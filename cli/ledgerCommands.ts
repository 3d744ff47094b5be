// `countersign ledger backfill | verify | checkpoint | prune`: the approvals ledger's upkeep. Backfill writes in what
// retained runs recorded before the ledger existed; verify recomputes the chains and the report rows (and compares
// retained runs' histories and, with --checkpoints, the signed checkpoints a witness keeps), printing one line per
// problem and exiting 1; checkpoint signs the tree head for the witness; prune is the only delete. Bad input: one line, exit 2, nothing done.
import type { Command } from 'commander';
import { type LedgerProblem, ledgerInUse } from '../storage/ledger/ledgerStore';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { clientIfReachable } from './ledgerConnection';
import { dim, print, printJson, printProblem } from './terminalOutput';
import { usage, usageExits } from './usageErrors';
import { visible } from '../core/visibleText';
import { CountersignError } from '../client/errors';

const where = (p: LedgerProblem) =>
  p.callId === undefined ? `seq ${p.seq}` : `call ${p.callId}${p.seq ? ` (seq ${p.seq})` : ''}`;
/** The checkpoint key's id and its key set's file: never the approvers' key set, so it can sign no decision. */
const CHECKPOINT_KEY_ID = 'ledger-checkpoint';
const CHECKPOINT_KEY_SET = 'ledger-checkpoint.jwks.json';

/** One line per problem; a checkpoint's own problem (a forged one) names no run. */
const problemLine = (p: LedgerProblem) =>
  visible(
    p.workflowId
      ? `${p.problem}: run ${p.workflowId} (chain ${p.chainId}) ${where(p)}: ${p.detail}`
      : `${p.problem}: ${p.detail}`,
    {
      oneLine: true,
    },
  );

/** A witness option checked before anything opens: a bad one is bad input (exit 2). */
const checkedWitness = (w: string) =>
  usage(() => {
    try {
      return lazy.ledgerWitness().witnessOf(w);
    } catch (err) {
      throw new CountersignError((err as Error).message);
    }
  });

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
    .option(
      '--checkpoints <witness>',
      'also check every signed checkpoint this folder or s3://bucket/prefix keeps: each signature, then that the ledger only grew since',
    )
    .option(
      '--checkpoint-keys <file>',
      'the public keys checkpoints are checked with (default COUNTERSIGN_LEDGER_CHECKPOINT_KEYS)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { since?: string; json?: boolean; checkpoints?: string; checkpointKeys?: string }) => {
      const { sinceIso } = lazy.reportPeriod();
      if (o.since !== undefined) usage(() => sinceIso(o.since!));
      if (o.checkpoints !== undefined) checkedWitness(o.checkpoints);
      const client = await clientIfReachable(connect, "checking the chains alone (no run's history compared)");
      const store = await lazy.ledgerAccess().openConfiguredLedger();
      try {
        // The global --task-queue narrows the comparison with history to that queue's runs; the chains are all checked.
        const verified = await lazy
          .ledgerVerify()
          .verifyLedger(client, { since: o.since, taskQueue: taskQueue(), ledger: store });
        const checked =
          o.checkpoints === undefined
            ? undefined
            : await lazy
                .ledgerCheckpoints()
                .checkCheckpoints(store, { witness: o.checkpoints, keysFile: o.checkpointKeys });
        const result = { ...verified, problems: [...verified.problems, ...(checked?.problems ?? [])] };
        // Records written to another ledger are not this one's problems, but it cannot vouch for them: exit 1 too.
        if (result.problems.length || result.writtenElsewhere.length) process.exitCode = 1;
        if (o.json)
          return printJson(checked ? { ...result, checkpoints: { ...checked, problems: undefined } } : result);
        print(dim(ledgerInUse(store)));
        for (const p of result.problems) printProblem(problemLine(p));
        for (const e of result.writtenElsewhere) printProblem(`run ${e.workflowId} (chain ${e.chainId}): ${e.detail}`);
        const vouched =
          checked && `, ${checked.trusted} of ${checked.read} checkpoint(s) trusted (up to size ${checked.treeSize})`;
        const summary = `${result.chains} chain(s), ${result.records} record(s), ${result.comparedWithHistory} compared with their run's history${vouched ?? ''}`;
        const elsewhere = result.writtenElsewhere.length;
        if (result.problems.length) printProblem(`${result.problems.length} problem(s) in ${summary}`);
        if (elsewhere) printProblem(`${elsewhere} run(s) written to another ledger; ${summary}`);
        if (!result.problems.length && !elsewhere) print(dim(`ledger verified: ${summary}; no problems`));
      } finally {
        await store.close();
      }
    });

  ledger
    .command('checkpoint')
    .description(
      "sign the ledger's tree head (a Merkle root over every record, and the count) and hand it to the witness outside the database",
    )
    .option(
      '--witness <witness>',
      'a folder, s3://bucket/prefix or an https:// webhook (default COUNTERSIGN_LEDGER_WITNESS)',
    )
    .option('--key <file>', 'the Ed25519 private key it is signed with (default COUNTERSIGN_LEDGER_CHECKPOINT_KEY)')
    .option('--json', 'machine-readable output')
    .action(async (o: { witness?: string; key?: string; json?: boolean }) => {
      if (o.witness !== undefined) checkedWitness(o.witness);
      const store = await lazy.ledgerAccess().openConfiguredLedger();
      try {
        const taken = await lazy.ledgerCheckpoints().takeCheckpoint(store, { witness: o.witness, keyFile: o.key });
        if (o.json) return printJson(taken);
        if (taken.unchanged)
          return print(
            `no record since the last checkpoint (size ${taken.treeSize}, ${taken.records} record(s)): none taken`,
          );
        print(
          `checkpoint of size ${taken.treeSize} (${taken.records} record(s) kept), root ${taken.rootHash}, kept at ${taken.where}`,
        );
      } finally {
        await store.close();
      }
    });

  ledger
    .command('checkpoint-key')
    .description(
      'make the Ed25519 key pair checkpoints are signed with: a private key for COUNTERSIGN_LEDGER_CHECKPOINT_KEY and its public key set, apart from any approver keys',
    )
    .option('--dir <dir>', "a folder of its own for both files (not the approvers' keys folder)", '.')
    .option('--json', 'machine-readable output')
    .action((o: { dir: string; json?: boolean }) => {
      const { privateKeyFile, keySetFile } = lazy
        .decisionSigning()
        .generateApproverKey(CHECKPOINT_KEY_ID, o.dir, CHECKPOINT_KEY_SET);
      if (o.json) return printJson({ privateKeyFile, keySetFile });
      print(`private key: ${privateKeyFile} (where the ledger's database administrators cannot read it)`);
      print(`key set:     ${keySetFile}`);
      print(
        dim(
          `set COUNTERSIGN_LEDGER_CHECKPOINT_KEY=${privateKeyFile} and COUNTERSIGN_LEDGER_WITNESS where checkpoints are taken; verify with COUNTERSIGN_LEDGER_CHECKPOINT_KEYS=${keySetFile} countersign ledger verify --checkpoints <witness>`,
        ),
      );
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
