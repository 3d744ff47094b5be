// `countersign session show <id>`: a session's runs and the history its next run would start with. A presenter over
// client/sessions/sessions.ts, loaded when the command runs (as cliLazy.ts does), so `countersign --help` stays fast.
import type { Command } from 'commander';
import type { Connect } from './cliConnection';
import { ago, bold, dim, print, printJson, table, yellow } from './terminalOutput';

const sessions = () => require('../client/sessions/sessions') as typeof import('../client/sessions/sessions');

export function addSessionCommand(program: Command, connect: Connect): void {
  const session = program
    .command('session')
    .description('sessions: one conversation across runs (start <agent> <input> --session <id>)');
  session
    .command('show')
    .description("a session's runs (workflow id, status, started, items) and the history its next run would start with")
    .argument('<id>', 'session id')
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { json?: boolean }) => {
      const { client, runner } = await connect();
      const view = await sessions().describeSession(client, id, runner.sessionMaxItems);
      if (o.json) return printJson(view);
      const { next } = view;
      const rows = view.runs.map((r) => [
        r.workflowId,
        r.status,
        ago(r.startedAt),
        r.items === undefined ? '-' : String(r.items),
      ]);
      const history = `${next.historyItems} items (${next.historyBytes} bytes) of history, limit ${next.maxItems} items`;
      print(
        [
          `${bold('Session')}   ${view.session}`,
          `${bold('Runs')}      ${view.runs.length}`,
          ...(rows.length ? ['', table(['RUN', 'STATUS', 'STARTED', 'ITEMS'], rows)] : []),
          '',
          next.busy
            ? `${bold('Next run')}  ${next.workflowId}: ${yellow(`refused until ${view.runs.at(-1)?.workflowId} finishes (${next.busy})`)}; so far it would start with ${history}`
            : `${bold('Next run')}  ${next.workflowId} starts with ${history}`,
          ...(view.runs.length
            ? []
            : [dim(`Start it with: countersign start <agent> <input> --session ${view.session}`)]),
        ].join('\n'),
      );
    });
}
