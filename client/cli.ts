// `countersign`: the operator's and approver's command line, a thin layer over the client library.
// Every command takes --json for scripts; errors are one line on stderr and exit code 1.
import type { Client } from '@temporalio/client';
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../temporal.config';
import { summarizeCall } from '../domain/callSummary';
import type { ConversationItem } from '../domain/items';
import type { AuditEntry, Decision, PendingApproval, RunResult, RunView } from '../workflows/messages';
import { ago, bold, dim, green, red, table, yellow } from './cliOutput';
import { EncryptionCodec } from '../codec/encryptionCodec';
import { startCodecServer } from './codecServer';
import { connectClient } from './connect';
import { CountersignError } from './errors';
import { type AgentRunResult, Runner, type RunOptions } from './runner';
import { auditOf, conversationOf, workflowStatus } from './runReads';
import { defaultApprover } from './runState';

interface GlobalOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

const program = new Command('countersign')
  .description('Start agent runs, see what waits for a person, and decide it.')
  .option('--address <host:port>', 'Temporal server (default: TEMPORAL_ADDRESS or the profile)')
  .option('--namespace <ns>', 'Temporal namespace (default: TEMPORAL_NAMESPACE or default)')
  .option('--task-queue <queue>', 'task queue of new runs (default: COUNTERSIGN_TASK_QUEUE or countersign)')
  .showHelpAfterError();

let cached: { runner: Runner; client: Client } | undefined;
async function connect(): Promise<{ runner: Runner; client: Client }> {
  if (cached) return cached;
  const g = program.opts<GlobalOptions>();
  const env = { ...process.env };
  if (g.address) env.TEMPORAL_ADDRESS = g.address;
  if (g.namespace) env.TEMPORAL_NAMESPACE = g.namespace;
  if (g.taskQueue) env.COUNTERSIGN_TASK_QUEUE = g.taskQueue;
  const config = loadConfig(env);
  const client = await connectClient(config);
  cached = { client, runner: new Runner(client, { taskQueue: config.taskQueue }) };
  return cached;
}

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
const printJson = (value: unknown) => print(JSON.stringify(value, null, 2));

function pendingTable(pending: PendingApproval[], withRun?: (p: PendingApproval) => string[]): string {
  const headers = [...(withRun ? ['WORKFLOW ID', 'AGENT'] : []), 'CALL ID', 'KIND', 'TOOL', 'ARGUMENTS', 'WAITING SINCE', 'EXPIRES'];
  const kind = (p: PendingApproval) => (p.kind === 'input' ? `input: ${(p.fields ?? []).join(',')}` : (p.kind ?? 'approval'));
  const rows = pending.map((p) => [...(withRun ? withRun(p) : []), p.callId, kind(p), p.toolName, p.arguments, ago(p.requestedAt), p.expiresAt ? ago(p.expiresAt) : '-']);
  return table(headers, rows, 'ARGUMENTS');
}

function describeOutcome(result: AgentRunResult): string {
  if (result.interruptions.length === 0) return result.finalOutput ?? '';
  return [
    `${yellow('Waiting for approval')} — run ${bold(result.workflowId)}:`,
    pendingTable(result.interruptions),
    '',
    dim(`Decide with: countersign approve ${result.workflowId} <callId|--all>   or   countersign reject ${result.workflowId} <callId|--all> --message "why"`),
  ].join('\n');
}

// ── start ──────────────────────────────────────────────────────────────────────────────────────────────────
program
  .command('start')
  .description('start an agent run; prints its workflow id (with --wait: its interruptions or final output)')
  .argument('<agent>', 'agent name, e.g. email-assistant')
  .argument('<input>', 'the user message')
  .option('--workflow-id <id>', 'workflow id (default: <agent>-<uuid>)')
  .option('--approval-timeout <duration>', 'how long each approval may wait, e.g. 1h, 7d')
  .addOption(new Option('--on-timeout <action>', 'what a timeout does').choices(['reject', 'approve', 'fail']))
  .option('--remind-every <duration>', 'reminder interval while an approval waits')
  .option('--escalate-after <duration>', 'escalate an approval that waited this long')
  .option('--escalate-to <who>', 'escalation target named in the notification')
  .option('--run-timeout <duration>', 'whole-run deadline')
  .option('--max-turns <n>', 'model turns before the run fails', (v) => Number(v))
  .option('--wait', 'wait for the first pause or the end')
  .option('--json', 'machine-readable output')
  .action(async (agent: string, input: string, o) => {
    const { runner } = await connect();
    const options: RunOptions = {
      workflowId: o.workflowId,
      approvalTimeout: o.approvalTimeout,
      onTimeout: o.onTimeout,
      remindEvery: o.remindEvery,
      escalateAfter: o.escalateAfter,
      escalateTo: o.escalateTo,
      runTimeout: o.runTimeout,
      maxTurns: o.maxTurns,
    };
    if (!o.wait) {
      const workflowId = await runner.startOnly(agent, input, options);
      return o.json ? printJson({ workflowId }) : print(workflowId);
    }
    const result = await runner.run(agent, input, options);
    if (o.json) return printJson({ workflowId: result.workflowId, status: result.status, interruptions: result.interruptions, finalOutput: result.finalOutput });
    print(result.interruptions.length ? describeOutcome(result) : `${dim(`run ${result.workflowId} completed:`)}\n${result.finalOutput}`);
  });

// ── pending ────────────────────────────────────────────────────────────────────────────────────────────────
program
  .command('pending')
  .description('every pending approval in the namespace (runs found by HitlStatus, then each run asked)')
  .option('--agent <name>', 'only this agent')
  .option('--tool <name>', 'only this tool')
  .option('--json', 'machine-readable output')
  .action(async (o: { agent?: string; tool?: string; json?: boolean }) => {
    for (const [flag, value] of [['--agent', o.agent], ['--tool', o.tool]] as const)
      if (value !== undefined && !/^[\w.@-]+$/.test(value)) throw new CountersignError(`${flag} must be a plain name (letters, digits, _ . @ -), got ${JSON.stringify(value)}`);
    const { runner } = await connect();
    const rows = await runner.pending({ agent: o.agent, tool: o.tool });
    if (o.json) return printJson(rows);
    if (rows.length === 0) return print('No approvals are pending.');
    print(pendingTable(rows, (p) => [(p as PendingApproval & { workflowId: string }).workflowId, p.agentName]));
  });

// ── show ───────────────────────────────────────────────────────────────────────────────────────────────────
function auditLine(a: AuditEntry): string[] {
  const note = a.decision === 'ignored' ? (a.ignoredBecause ?? '') : a.decision === 'timed_out' ? `onTimeout ${a.onTimeout}` : (a.message ?? a.reason ?? '');
  const colour = a.decision.endsWith('approved') ? green : a.decision === 'ignored' ? dim : red;
  return [a.decidedAt, a.callId, a.toolName ?? '-', colour(a.decision), a.approver ?? '-', a.via, note];
}
const auditTable = (audit: AuditEntry[]) => table(['DECIDED AT', 'CALL ID', 'TOOL', 'DECISION', 'APPROVER', 'VIA', 'REASON / MESSAGE'], audit.map(auditLine), 'REASON / MESSAGE');

program
  .command('show')
  .description('a run: status, pending calls with full arguments, decisions so far')
  .argument('<workflowId>')
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, o: { json?: boolean }) => {
    const { runner } = await connect();
    const s = await runner.describe(workflowId);
    if (o.json) return printJson(s);
    const lines = [
      `${bold('Run')}       ${workflowId}`,
      `${bold('Agent')}     ${s.agent.name}@${s.agent.version}`,
      `${bold('Status')}    ${s.status}  (turn ${s.turn}/${s.maxTurns}, started ${ago(s.startedAt)}${s.continuedAsNew ? `, continued as new ${s.continuedAsNew}×` : ''})`,
    ];
    if (s.problem) lines.push(`${bold('Problem')}   ${red(s.problem)}`);
    if (s.pending.length) {
      lines.push('', bold('Pending'));
      for (const p of s.pending) {
        lines.push(`  ${p.callId}  ${p.toolName}  requested ${ago(p.requestedAt)}${p.expiresAt ? `, expires ${ago(p.expiresAt)}` : ''}${p.approvers ? `, approvers: ${p.approvers.join(', ')}` : ''}`);
        lines.push(...JSON.stringify(JSON.parse(p.arguments), null, 2).split('\n').map((l) => `    ${l}`));
      }
    }
    if (s.audit.length) lines.push('', bold(s.auditFrom ? `Decisions (newest ${s.audit.length}; all: countersign audit ${workflowId})` : 'Decisions'), auditTable(s.audit));
    if (s.finalOutput !== undefined) lines.push('', bold('Final output'), s.finalOutput);
    if (s.error) lines.push('', red(`Failed (${s.errorType ?? 'error'}): ${s.error}`));
    print(lines.join('\n'));
  });

// ── approve / reject ───────────────────────────────────────────────────────────────────────────────────────
async function decideCommand(
  kind: 'approve' | 'reject',
  workflowId: string,
  callId: string | undefined,
  o: { all?: boolean; always?: boolean; as?: string; reason?: string; message?: string; edit?: string; json?: boolean },
) {
  if (!callId && !o.all) throw new CountersignError(`name a call id or pass --all (see: countersign show ${workflowId})`);
  if (callId && o.all) throw new CountersignError('pass a call id or --all, not both');
  if (o.edit !== undefined && !callId) throw new CountersignError('--edit applies to one call: name its call id');
  let editedArguments: Record<string, unknown> | undefined;
  if (o.edit !== undefined) {
    try {
      editedArguments = JSON.parse(o.edit) as Record<string, unknown>;
    } catch {
      throw new CountersignError(`--edit must be a JSON object of arguments, e.g. '{"to":"bob@example.com"}'`);
    }
    if (!editedArguments || typeof editedArguments !== 'object' || Array.isArray(editedArguments)) throw new CountersignError('--edit must be a JSON object of arguments');
  }
  const { runner } = await connect();
  let ids = callId ? [callId] : [];
  if (o.all) {
    ids = (await runner.pending(workflowId)).map((p) => p.callId);
    if (ids.length === 0) throw new CountersignError(`run ${workflowId} has no pending approvals`);
  }
  const decisions: Decision[] = ids.map((id) => ({
    callId: id,
    decision: kind,
    ...(o.always ? { always: true } : {}),
    ...asApprover(o.as),
    ...(o.reason ? { reason: o.reason } : {}),
    ...(o.message ? { message: o.message } : {}),
    ...(editedArguments ? { editedArguments } : {}),
  }));
  await send(workflowId, decisions, o.json);
}

/** Sends decisions through the decide update and says what was applied. */
async function send(workflowId: string, decisions: Decision[], json?: boolean): Promise<void> {
  const { runner } = await connect();
  const result = await runner.decide(workflowId, decisions);
  if (json) return printJson(result);
  for (const a of result.applied) print(`${a.outcome === 'rejected' || a.outcome === 'auto_rejected' ? red(a.outcome) : green(a.outcome)} ${a.toolName} (call ${a.callId})${a.approver ? ` as ${a.approver}` : ''}`);
  if (result.stillPending.length) print(dim(`still pending: ${result.stillPending.join(', ')}`));
}

/** The approver for a decision: --as, else the OS user. */
const asApprover = (as?: string) => {
  const approver = as ?? defaultApprover();
  return approver ? { approver } : {};
};

program
  .command('approve')
  .description('approve a pending call (through the validating decide update)')
  .argument('<workflowId>')
  .argument('[callId]')
  .option('--all', 'every pending call of the run')
  .option('--always', 'also approve every later call of the same tool in this run')
  .option('--edit <json>', 'approve with these arguments instead (a JSON object, checked against the tool schema)')
  .option('--as <name>', 'approver name (default: your OS user)')
  .option('--reason <text>', 'why, for the audit log')
  .option('--json', 'machine-readable output')
  .action((workflowId: string, callId: string | undefined, o) => decideCommand('approve', workflowId, callId, o));

program
  .command('reject')
  .description('reject a pending call; the tool never runs and the model gets the message')
  .argument('<workflowId>')
  .argument('[callId]')
  .option('--all', 'every pending call of the run')
  .option('--message <text>', 'what the model is told')
  .option('--always', 'also reject every later call of the same tool in this run')
  .option('--as <name>', 'approver name (default: your OS user)')
  .option('--reason <text>', 'why, for the audit log')
  .option('--json', 'machine-readable output')
  .action((workflowId: string, callId: string | undefined, o) => decideCommand('reject', workflowId, callId, o));

function parseJsonOption(flag: string, text: string, example: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CountersignError(`${flag} must be JSON, e.g. ${example}`);
  }
}

program
  .command('input')
  .description('fill in the fields an input call waits for (provideInput); the call then runs')
  .argument('<workflowId>')
  .argument('<callId>')
  .requiredOption('--values <json>', 'a JSON object of field values, e.g. \'{"time":"10:00"}\'')
  .option('--as <name>', 'who provides it (default: your OS user)')
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, callId: string, o: { values: string; as?: string; json?: boolean }) => {
    const values = parseJsonOption('--values', o.values, `'{"time":"10:00"}'`);
    if (!values || typeof values !== 'object' || Array.isArray(values)) throw new CountersignError('--values must be a JSON object');
    await send(workflowId, [{ callId, decision: 'input', values: values as Record<string, unknown>, ...asApprover(o.as) }], o.json);
  });

program
  .command('provide-result')
  .description("deliver an external call's result (or failure); the model gets it as the call's output")
  .argument('<workflowId>')
  .argument('<callId>')
  .option('--result <text>', 'the result (text, or JSON)')
  .option('--error <text>', 'the call failed: what went wrong')
  .option('--as <name>', 'who delivers it (default: your OS user)')
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, callId: string, o: { result?: string; error?: string; as?: string; json?: boolean }) => {
    if ((o.result === undefined) === (o.error === undefined)) throw new CountersignError('pass exactly one of --result or --error');
    const outcome = o.error !== undefined ? { error: o.error } : { result: o.result as string };
    await send(workflowId, [{ callId, decision: 'result', ...outcome, ...asApprover(o.as) }], o.json);
  });

program
  .command('add-input')
  .description("add a user message to a run; the model gets it on its next turn")
  .argument('<workflowId>')
  .argument('<message>')
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, message: string, o: { json?: boolean }) => {
    const { client, runner } = await connect();
    await workflowStatus(client, workflowId); // a clear error for an unknown run
    const result = await runner.decide(workflowId, [], [message]);
    if (o.json) return printJson(result);
    print(`queued for the next turn (${result.inputsQueued ?? 1} waiting)`);
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
    const s = await runner.describe(workflowId);
    let final: RunView = s;
    if (s.status !== 'Completed' && s.status !== 'Failed') {
      if (!o.wait) throw new CountersignError(`run ${workflowId} is still running (${s.status}${s.pending.length ? `, ${s.pending.length} pending` : ''}); pass --wait to wait for it`);
      final = await client.workflow
        .getHandle(workflowId)
        .result()
        .then(
          (r) => r as RunResult,
          () => runner.describe(workflowId),
        );
    }
    if (final.status === 'Failed') throw new CountersignError(`run ${workflowId} failed (${final.errorType ?? 'error'}): ${final.error}`);
    if (o.json) return printJson(final);
    print(final.finalOutput ?? '');
  });

program
  .command('audit')
  .description('every decision of a run: who, what, when, why (running or closed)')
  .argument('<workflowId>')
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, o: { json?: boolean }) => {
    const { runner } = await connect();
    const audit = await runner.audit(workflowId);
    if (o.json) return printJson(audit);
    print(audit.length ? auditTable(audit) : 'No decisions yet.');
  });

function itemLine(item: ConversationItem): string {
  if (item.type === 'message') return `${bold(item.role)}: ${item.content}`;
  if (item.type === 'function_call') return `${yellow('→')} ${summarizeCall(item.name, item.arguments, 100)} ${dim(`(call ${item.callId})`)}`;
  return `${green('←')} ${item.callId}: ${item.output}`;
}

program
  .command('watch')
  .description('follow a run live: turns, tool calls, pauses, decisions, until it ends')
  .argument('<workflowId>')
  .option('--interval <ms>', 'how often to look', (v) => Number(v), 500)
  .action(async (workflowId: string, o: { interval: number }) => {
    const { client, runner } = await connect();
    let cursor = { items: 0, audit: 0 };
    let lastStatus = '';
    for (;;) {
      const s = await runner.describe(workflowId);
      // Read what is new since the last look, page by page: never the whole conversation again.
      if (s.cursor.items > cursor.items) for await (const item of conversationOf(client, workflowId, cursor.items)) print(itemLine(item));
      if (s.cursor.audit > cursor.audit) for await (const a of auditOf(client, workflowId, cursor.audit)) print(`${dim('decision')} ${auditLine(a).slice(1, 6).join(' ')}`);
      cursor = s.cursor;
      const status = `${s.status}${s.pending.length ? `: ${s.pending.map((p) => summarizeCall(p.toolName, p.arguments)).join(', ')}` : ''}`;
      if (status !== lastStatus) print(dim(`status ${status}`));
      lastStatus = status;
      if (s.status === 'Completed') return;
      if (s.status === 'Failed') throw new CountersignError(`run ${workflowId} failed (${s.errorType ?? 'error'}): ${s.error}`);
      await new Promise((r) => setTimeout(r, o.interval));
    }
  });

program
  .command('codec-server')
  .description('serve the encryption codec to the Temporal Web UI (needs COUNTERSIGN_ENCRYPTION_KEYS; optional COUNTERSIGN_CODEC_TOKEN)')
  .option('--port <n>', 'port', (v) => Number(v), 8888)
  .option('--host <ip>', 'address to listen on', '127.0.0.1')
  .option('--origin <url...>', 'Web UI origins allowed by CORS', ['http://localhost:8233'])
  .action(async (o: { port: number; host: string; origin: string[] }) => {
    const config = loadConfig();
    if (!config.encryptionKeys) throw new CountersignError('set COUNTERSIGN_ENCRYPTION_KEYS (keyId:base64key,…) to serve the codec');
    const server = await startCodecServer({ codec: EncryptionCodec.fromSpec(config.encryptionKeys), port: o.port, host: o.host, origins: o.origin, token: process.env.COUNTERSIGN_CODEC_TOKEN });
    print(`codec server at ${server.url} (CORS: ${o.origin.join(', ')}${process.env.COUNTERSIGN_CODEC_TOKEN ? '; bearer token required' : ''}); in the Web UI, set the codec endpoint to this URL`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    await server.close();
  });

export async function main(argv = process.argv): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const message = err instanceof CountersignError || err instanceof ConfigError ? err.message : err instanceof Error ? err.message.split('\n')[0] : String(err);
    process.stderr.write(`countersign: ${message}\n`);
    if (process.env.COUNTERSIGN_DEBUG) console.error(err);
    process.exitCode = 1;
  } finally {
    await cached?.client.connection.close().catch(() => undefined);
  }
}
