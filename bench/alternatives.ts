// Countersign against the alternatives, on the bench's dev server and scripted model:
//  - Temporal's OpenAI Agents integration with its documented approve-then-continue-as-new pattern (events per
//    approval cycle and per run, decision → tool time);
//  - the OpenAI Agents SDK in-process, not durable: the same scenario, approved at once, milliseconds per model turn.
// The alternatives live in bench/alternatives (their own package and versions), installed here on first use.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { Runner } from '../client/run/runner';
import { projectRoot } from '../test/support/toolchain';
import { p50p99 } from './history';
import type { Actions } from './actions';
import { floorApprove, floorPaused } from './floorWorkflow';

type P = { p50: number; p99: number };
export interface AlternativesResult {
  iterations: number;
  /** actions: Temporal Cloud actions of one run (both executions) and of one approval (bench/actions.ts). */
  temporalAgents: {
    cycleEvents: number;
    runEvents: number;
    decisionToToolMs: P;
    actions?: { run: Actions; cycle: Actions };
  };
  inProcess: { runMs: P; turnsPerRun: number };
  countersign: { runMs: P; turnsPerRun: number };
  /** Fast mode (COUNTERSIGN_FAST_MODE: model calls as local activities), the same loop. */
  countersignFast?: { runMs: P; turnsPerRun: number };
  /** The agent floor (bench/floorWorkflow.ts), driven the same way: update-with-start until it waits, a signal, the result. */
  floorAgent?: { runMs: P; turnsPerRun: number };
}

/** Milliseconds per model turn of a system's runs (p50 of a run over its turns). */
export const perTurn = (x: { runMs: P; turnsPerRun: number }) => x.runMs.p50 / x.turnsPerRun;

const dir = join(projectRoot, 'bench/alternatives');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} failed (exit ${code}):\n${err.slice(-3000)}`)),
    );
  });
}

export async function installAlternatives(log: (line: string) => void): Promise<void> {
  if (
    existsSync(join(dir, 'node_modules/@temporalio/openai-agents')) &&
    existsSync(join(dir, 'node_modules/@openai/agents'))
  )
    return;
  log('installing the alternatives (bench/alternatives: @temporalio/openai-agents, @openai/agents)…');
  await run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund']);
}

/** The last line a driver prints is its JSON result. */
export async function driver(file: string, env: NodeJS.ProcessEnv): Promise<unknown> {
  const out = await run(process.execPath, ['--require', 'tsx/cjs', join(dir, file)], env);
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** One Countersign run through its client library, shaped like the SDK's loop: run, approve, run the state. Its model turns. */
export async function countersignRun(runner: Runner, workflowId: string): Promise<number> {
  let result = await runner.run('email-assistant', 'Send the report to alice', { workflowId });
  const state = result.toState();
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  result = await runner.run('email-assistant', state);
  if (!result.finalOutput?.includes('Email sent to alice@example.com'))
    throw new Error(`unexpected final output: ${result.finalOutput}`);
  return result.snapshot.turn;
}

/** The agent floor through the same motions: start and wait for the pause (one update-with-start), approve, result. */
export async function floorAgentRun(client: Client, taskQueue: string, workflowId: string): Promise<number> {
  const startWorkflowOperation = new WithStartWorkflowOperation('floorAgentApproval', {
    taskQueue,
    workflowId,
    args: [workflowId],
    workflowIdConflictPolicy: 'FAIL',
  });
  await client.workflow.executeUpdateWithStart(floorPaused, { startWorkflowOperation });
  const handle = await startWorkflowOperation.workflowHandle();
  await handle.signal(floorApprove);
  await handle.result();
  return 2;
}

type Loop = () => (i: number) => Promise<number>;

/**
 * Each system's run, taken in turn within every iteration (not one system's runs after another's), so that the
 * server's drift over the minutes of a bench weighs on all of them alike. Milliseconds per run and turns per run.
 */
async function interleaved(
  iterations: number,
  loops: Record<string, Loop>,
): Promise<Record<string, { runMs: P; turnsPerRun: number }>> {
  const runs = Object.fromEntries(Object.entries(loops).map(([name, make]) => [name, make()]));
  const ms: Record<string, number[]> = Object.fromEntries(Object.keys(loops).map((k) => [k, []]));
  const turns: Record<string, number> = Object.fromEntries(Object.keys(loops).map((k) => [k, 0]));
  for (let i = 0; i < iterations; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const t0 = performance.now();
      turns[name]! += await run(i);
      ms[name]!.push(performance.now() - t0);
    }
  }
  return Object.fromEntries(
    Object.keys(loops).map((k) => [k, { runMs: p50p99(ms[k]!), turnsPerRun: turns[k]! / iterations }]),
  );
}

export async function measureAlternatives(o: {
  client: Client;
  taskQueue: string;
  fastTaskQueue: string;
  address: string;
  modelBaseURL: string;
  iterations: number;
  log: (line: string) => void;
}): Promise<AlternativesResult> {
  await installAlternatives(o.log);
  const env = {
    TEMPORAL_ADDRESS: o.address,
    OPENAI_BASE_URL: o.modelBaseURL,
    BENCH_ITERATIONS: String(o.iterations),
    COUNTERSIGN_DEMO_OUTBOX: join(projectRoot, '.temporal/bench-outbox.jsonl'),
  };
  o.log('alternatives: Countersign (default and fast mode) and the agent floor, interleaved…');
  const stamp = Date.now();
  const measured = await interleaved(o.iterations, {
    countersign: () =>
      (
        (runner) => (i: number) =>
          countersignRun(runner, `bench-turns-${stamp}-${i}`)
      )(new Runner(o.client, { taskQueue: o.taskQueue })),
    countersignFast: () =>
      (
        (runner) => (i: number) =>
          countersignRun(runner, `bench-turns-fast-${stamp}-${i}`)
      )(new Runner(o.client, { taskQueue: o.fastTaskQueue })),
    floorAgent: () => (i: number) => floorAgentRun(o.client, o.taskQueue, `bench-floor-turns-${stamp}-${i}`),
  });
  const { countersign, countersignFast, floorAgent } = measured as Record<
    'countersign' | 'countersignFast' | 'floorAgent',
    { runMs: P; turnsPerRun: number }
  >;
  o.log('alternatives: @openai/agents in-process…');
  const inProcess = (await driver('inProcess.ts', env)) as AlternativesResult['inProcess'];
  o.log('alternatives: @temporalio/openai-agents…');
  const temporalAgents = (await driver('temporalAgents.ts', env)) as AlternativesResult['temporalAgents'];
  return { iterations: o.iterations, temporalAgents, inProcess, countersign, countersignFast, floorAgent };
}
