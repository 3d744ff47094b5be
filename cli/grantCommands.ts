// `countersign grant`, `grants` and `revoke`: standing grants from the command line, over client/grants/grantsClient.ts (loaded
// when a command runs, so `countersign --help` stays light). Bad input is one line and exit 1 before anything is sent.
import { jsonObjectOption } from './jsonOptions';
import type { Command } from 'commander';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { ago, dim, print, printJson, table } from './terminalOutput';
import { CountersignError } from '../client/errors';
import { defaultApprover } from '../client/approvals/approver';
import { sameApprover } from '../contract/approverName';

/** The approver named with --as, else the OS user; a grant must name one. */
function approverOf(as: string | undefined): string {
  const who = as ?? defaultApprover();
  if (!who) throw new CountersignError('name the approver with --as (the OS user is unknown)');
  return who;
}

/** --where as a JSON object; its constraints are checked with the rest of the request. */
function parseWhere(text: string): Record<string, unknown> {
  return jsonObjectOption(
    '--where',
    text,
    `'{"to":"*@example.com","amount":{"max":100}}'`,
    `--where must be a JSON object of argument constraints, e.g. '{"to":"*@example.com"}'`,
  );
}

function parseUses(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new CountersignError('--uses must be a whole number of at least 1');
  return Number(text);
}

export function addGrantCommands(program: Command, connect: Connect): void {
  program
    .command('grant')
    .description(
      'approve calls of a tool whose arguments match --where, for a while (a standing grant); prints the grant id',
    )
    .argument('<agent>', 'agent name, e.g. email-assistant')
    .argument('<tool>', 'tool name, e.g. send_email')
    .requiredOption(
      '--where <json>',
      'argument constraints: exact JSON values, "*" globs, {"max": n} / {"min": n}; {} for any call',
    )
    .requiredOption('--for <duration>', 'how long it holds, e.g. 1h, 7d')
    .option('--uses <n>', 'calls it may approve in all (default: any number until it expires)')
    .option('--as <name>', "approver who grants it (default: your OS user; with --key: the key's approver)")
    .option(
      '--key <file>',
      'sign the grant with this approver private key (<approver>.private.jwk): needed for a tool that needs signed decisions or a quorum',
    )
    .option('--json', 'machine-readable output')
    .action(
      async (
        agent: string,
        tool: string,
        o: { where: string; for: string; uses?: string; as?: string; key?: string; json?: boolean },
      ) => {
        const key = o.key !== undefined ? lazy.decisionSigning().readPrivateKey(o.key) : undefined;
        if (key && o.as !== undefined && !sameApprover(o.as, key.kid))
          throw new CountersignError(
            `--as ${o.as} contradicts --key: a signed grant is by the key's approver (${key.kid}); drop --as`,
          );
        const grantedBy = key ? key.kid : approverOf(o.as);
        const request = {
          agent,
          tool,
          where: parseWhere(o.where),
          for: o.for,
          ...(o.uses !== undefined ? { uses: parseUses(o.uses) } : {}),
          grantedBy,
          ...(key ? { signWith: key } : {}),
        };
        const { grant, grantProblem } = lazy.grants();
        const problem = grantProblem(request);
        if (problem) throw new CountersignError(problem);
        const { client, runner, config } = await connect();
        const result = await grant(client, runner.taskQueue, request, { workflowId: config?.grantsWorkflowId });
        if (o.json) return printJson(result);
        print(result.grantId);
        if (result.warning) process.stderr.write(`countersign: warning: ${result.warning}\n`);
      },
    );

  program
    .command('grants')
    .description(
      'the standing grants that apply now: id, agent, tool, constraints, expiry, uses left, who granted them',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { client, config } = await connect();
      const grants = await lazy.grants().listGrants(client, { workflowId: config?.grantsWorkflowId });
      if (o.json) return printJson(grants);
      if (grants.length === 0) return print('No active grants.');
      const rows = grants.map((g) => [
        g.id,
        g.agent,
        g.tool,
        JSON.stringify(g.where),
        `${g.expiresAt} (${ago(g.expiresAt)})`,
        g.usesLeft === null ? 'any' : String(g.usesLeft),
        `${g.grantedBy}${g.signedBy ? ' (signed)' : ''}`,
      ]);
      print(table(['ID', 'AGENT', 'TOOL', 'WHERE', 'EXPIRES', 'USES LEFT', 'BY'], rows, 'WHERE'));
      print(
        dim(`${grants.length} active grant${grants.length === 1 ? '' : 's'}; revoke one with: countersign revoke <id>`),
      );
    });

  program
    .command('revoke')
    .description('revoke a standing grant: calls planned from now on no longer use it')
    .argument('<grantId>')
    .option('--as <name>', 'who revokes it, for the record (default: your OS user)')
    .option('--json', 'machine-readable output')
    .action(async (grantId: string, o: { as?: string; json?: boolean }) => {
      const { client, config } = await connect();
      const result = await lazy
        .grants()
        .revokeGrant(client, grantId, o.as ?? defaultApprover(), { workflowId: config?.grantsWorkflowId });
      if (o.json) return printJson(result);
      print(`revoked ${result.grantId}`);
    });
}
