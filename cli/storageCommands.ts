// `countersign storage gc`: deletes from the payload store what no run the namespace still has can read. A presenter
// over storage/payloadGc.ts, loaded when the command runs, so `countersign --help` stays fast.
import type { Command } from 'commander';
import { CountersignError } from '../client/errors';
import type { Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { bold, dim, print, printJson } from './terminalOutput';

const payloadGc = () => require('../storage/payloadGc') as typeof import('../storage/payloadGc');
const SHOWN_IDS = 20;

export const sizeText = (bytes: number) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const tallyText = (t: { objects: number; bytes: number }) => `${t.objects} objects, ${sizeText(t.bytes)}`;

export function addStorageCommands(program: Command, connect: Connect): void {
  const storage = program
    .command('storage')
    .description('the payload store (COUNTERSIGN_PAYLOAD_STORAGE): keep it to what runs can still read');
  storage
    .command('gc')
    .description(
      "delete stored payloads no open run and no run inside the namespace's retention can read (the histories are read, references followed)",
    )
    .option('--dry-run', 'report what would be deleted, delete nothing')
    .option(
      '--min-age <duration>',
      'keep objects written or touched more recently than this, e.g. 1h, 30m (default: COUNTERSIGN_PAYLOAD_GC_MIN_AGE, 1h)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { dryRun?: boolean; minAge?: string; json?: boolean }) => {
      // Checked before connecting: a bad flag changes nothing and needs no server.
      const minAgeMs = o.minAge === undefined ? undefined : lazy.config().durationMsOf(o.minAge, true);
      if (o.minAge !== undefined && minAgeMs === undefined)
        throw new CountersignError(
          `--min-age must be a duration such as 1h, 30m or 0s, got ${JSON.stringify(o.minAge)}`,
        );
      const { client, config } = await connect();
      const c = config ?? lazy.config().loadConfig();
      const { collectPayloadGarbage, GcRefused } = payloadGc();
      let report;
      try {
        report = await collectPayloadGarbage(client.workflowService, {
          namespace: client.options.namespace,
          storage: c.payloadStorage,
          encryptionKeys: c.encryptionKeys,
          minAgeMs: minAgeMs ?? c.payloadGc.minAgeMs,
          dryRun: o.dryRun === true,
        });
      } catch (err) {
        if (err instanceof GcRefused) throw new CountersignError(`storage gc: ${err.message}; nothing was deleted`);
        throw err;
      }
      if (o.json) return printJson(report);
      const verb = report.dryRun ? 'would delete' : 'deleted';
      print(
        [
          `${bold('Store')}      ${report.store} (namespace ${report.namespace}, ${report.executions} executions read)`,
          `${bold('Before')}     ${tallyText(report.before)}`,
          `${bold('Reachable')}  ${tallyText(report.reachable)}`,
          `${bold('Recent')}     ${tallyText(report.recent)} ${dim(`(unreferenced, younger than ${report.minAgeMs / 1000}s: kept)`)}`,
          `${bold(report.dryRun ? 'Would go' : 'Deleted')}    ${tallyText(report.deleted)}${report.touched ? ` (${report.touched} touched meanwhile: kept)` : ''}`,
          `${bold('After')}      ${tallyText(report.after)}`,
          ...(report.missing.length
            ? [
                `${bold('Missing')}    ${report.missing.length} referenced objects are not in the store (lost before this sweep): ${report.missing.slice(0, 3).join(', ')}`,
              ]
            : []),
          ...report.deletedIds.slice(0, SHOWN_IDS).map((id) => dim(`  ${verb} ${id}`)),
          ...(report.deletedIds.length > SHOWN_IDS
            ? [dim(`  … and ${report.deletedIds.length - SHOWN_IDS} more (--json lists them all)`)]
            : []),
        ].join('\n'),
      );
    });
}
