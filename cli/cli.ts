// `countersign`: the operator's and approver's command line, a thin layer over the client library.
// Every command takes --json for scripts; errors are one line on stderr and exit code 1.
// Only commander and the presenters load at start (`countersign --help` stays fast); the Temporal client, the
// configuration and the payload store load when a command needs them.
import { Command, Option } from 'commander';
import { describeOutcome, dim, finalOutputText, print, printJson, printProblem } from './terminalOutput';
import { CountersignError } from '../client/errors';
import { type Connect } from './cliConnection';
import { addDecisionCommands } from './decisionCommands';
import { addReadCommands } from './readCommands';
import { addSessionCommand } from './sessionCommands';
import { addApprovalsCommand } from './approvalsCommand';
import { addKeyCommands } from './keyCommands';
import { addStorageCommands } from './storageCommands';
import { addServeCommand } from './serveCommand';
import type { RunOptions } from '../client/run/runner';
import type { CountersignConfig } from '../temporal.config';
import { lazy } from './lazyLoads';
import { jsonObjectOption } from './jsonOptions';

/**
 * `start --wait`: until this long after the command began, a worker that is starting up (npm start, a deploy) may
 * still show up on the queue; counted from the process's start, so a slow start-up never pushes the answer past 10 s.
 */
const WORKER_GRACE_UNTIL_MS = 8_000;
const MODEL_SETTINGS_EXAMPLE = `'{"toolChoice":"required","temperature":0.2}'`;
const CONTEXT_EXAMPLE = `'{"tenant":"acme","locale":"de"}'`;

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

/** The configuration (loaded once), with the global options over the environment. */
let loaded: CountersignConfig | undefined;
function config(): CountersignConfig {
  const g = program.opts<GlobalOptions>();
  return (loaded ??= lazy
    .config()
    .loadConfig(undefined, { address: g.address, namespace: g.namespace, taskQueue: g.taskQueue }));
}

let cached: Awaited<ReturnType<Connect>> | undefined;
const connect: Connect = async () => {
  if (cached) return cached;
  const [{ connectClient }, { Runner }] = [lazy.connect(), lazy.runner()];
  const c = config();
  const client = await connectClient(c);
  cached = {
    client,
    config: c,
    runner: new Runner(client, { taskQueue: c.taskQueue, sessionMaxItems: c.sessionMaxItems }),
  };
  return cached;
};

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
  .option(
    '--model-settings <json>',
    `the model's settings for this run, over the agent's, e.g. ${MODEL_SETTINGS_EXAMPLE}`,
  )
  .option(
    '--context <json>',
    `the run's context for tools, guardrails and instructions (kept in history: no secrets), e.g. ${CONTEXT_EXAMPLE}`,
  )
  .addOption(new Option('--on-max-turns <what>', 'at the turn limit').choices(['fail', 'final_output', 'ask']))
  .option('--session <id>', "continue this session: run session-<id>-<n>, starting with the session's conversation")
  .option('--session-rules', "with --session: keep the previous run's always-rules")
  .option('--wait', 'wait for the first pause or the end')
  .option('--json', 'machine-readable output')
  .action(async (agent: string, input: string, o) => {
    const { client, runner } = await connect();
    const options: RunOptions = {
      workflowId: o.workflowId,
      approvalTimeout: o.approvalTimeout,
      onTimeout: o.onTimeout,
      remindEvery: o.remindEvery,
      escalateAfter: o.escalateAfter,
      escalateTo: o.escalateTo,
      runTimeout: o.runTimeout,
      maxTurns: o.maxTurns,
      ...(o.modelSettings
        ? { modelSettings: jsonObjectOption('--model-settings', o.modelSettings, MODEL_SETTINGS_EXAMPLE) }
        : {}),
      ...(o.context ? { context: jsonObjectOption('--context', o.context, CONTEXT_EXAMPLE) } : {}),
      onMaxTurns: o.onMaxTurns,
      session: o.session,
      sessionRules: o.sessionRules,
    };
    const workflowId = await runner.startOnly(agent, input, options);
    // A run on a queue no worker polls would wait without a word: say so (with --wait, exit 1 rather than hang).
    const absent = await lazy
      .workerPresence()
      .noWorker(
        client,
        runner.taskQueue,
        workflowId,
        o.wait ? Math.max(1_000, WORKER_GRACE_UNTIL_MS - process.uptime() * 1000) : 0,
      );
    if (!o.wait) {
      if (o.json) printJson({ workflowId });
      else print(workflowId);
      if (absent) printProblem(absent.message);
      return;
    }
    if (absent) throw absent;
    // A worker that dies while the run goes on (or died just before) is noticed within seconds: exit 1 with the line.
    const result = await lazy.workerPresence().whileServed(client, workflowId, () => runner.nextPause(workflowId));
    if (o.json)
      return printJson({
        workflowId: result.workflowId,
        status: result.status,
        interruptions: result.interruptions,
        finalOutput: result.finalOutput,
        ...(result.snapshot.structuredOutput && result.finalOutput
          ? { output: JSON.parse(result.finalOutput) as unknown }
          : {}),
      });
    print(
      result.interruptions.length
        ? describeOutcome(result)
        : `${dim(`run ${result.workflowId} completed:`)}\n${finalOutputText(result.snapshot)}`,
    );
  });

addReadCommands(program, connect);
addDecisionCommands(program, connect);
addSessionCommand(program, connect);
addApprovalsCommand(program, connect);
addKeyCommands(program);
addStorageCommands(program, connect);
(require('./grantCommands') as typeof import('./grantCommands')).addGrantCommands(program, connect);
(require('./reviewCommand') as typeof import('./reviewCommand')).addReviewCommand(program, connect);
(require('./ledgerCommands') as typeof import('./ledgerCommands')).addLedgerCommands(program, connect);

program
  .command('codec-server')
  .description(
    'serve the payload codec to the Temporal Web UI: offloaded payloads fetched back, encrypted ones decrypted (optional COUNTERSIGN_CODEC_TOKEN)',
  )
  .option('--port <n>', 'port', (v) => Number(v), 8888)
  .option('--host <ip>', 'address to listen on', '127.0.0.1')
  .option('--origin <url...>', "Web UI origins allowed by CORS ('*': any origin, without credentials)", [
    'http://localhost:8233',
  ])
  .option('--max-body <bytes>', 'largest request body; more gets 413 (default 8 MiB)', (v) => Number(v))
  .action(async (o: { port: number; host: string; origin: string[]; maxBody?: number }) => {
    const [{ openPayloadStorage }, { startCodecServer }] = [lazy.payloadStorage(), lazy.codecServer()];
    const { payloadStorage, encryptionKeys, codecToken } = config();
    const storage = openPayloadStorage(payloadStorage, encryptionKeys);
    if (!storage.codecs.length && !storage.externalStorage)
      throw new CountersignError(
        'nothing to decode: set COUNTERSIGN_ENCRYPTION_KEYS (keyId:base64key,…) or turn payload storage on',
      );
    const server = await startCodecServer({
      codecs: storage.codecs,
      externalStorage: storage.externalStorage,
      port: o.port,
      host: o.host,
      origins: o.origin,
      token: codecToken,
      bodyLimitBytes: o.maxBody,
    });
    print(
      `codec server at ${server.url} (CORS: ${o.origin.join(', ')}${codecToken ? '; bearer token required' : ''}); in the Web UI, set the codec endpoint to this URL`,
    );
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    await server.close();
  });

addServeCommand(program, connect, config);
(require('./gatewayCommand') as typeof import('./gatewayCommand')).addGatewayCommand(program);
(require('./hookCommand') as typeof import('./hookCommand')).addHookCommands(program);

/** COUNTERSIGN_DEBUG: from the loaded configuration, or read alone when the failure came before (or from) loading it. */
function debugOn(): boolean {
  try {
    return loaded?.debug ?? Boolean(lazy.config().setting('COUNTERSIGN_DEBUG'));
  } catch {
    return false;
  }
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const message =
      err instanceof CountersignError || (err as Error)?.name === 'ConfigError'
        ? (err as Error).message
        : err instanceof Error
          ? err.message.split('\n')[0]
          : String(err);
    printProblem(message ?? String(err)); // an error may carry a run's words (its failure, a tool's output): shown, never obeyed
    if (debugOn()) console.error(err);
    process.exitCode = (err as Error)?.name === 'UsageError' ? 2 : 1; // bad input (cli/usageErrors.ts): 2
  } finally {
    await cached?.client.connection.close().catch(() => undefined);
  }
}
