// Countersign against the alternatives, on the bench's dev server and scripted model:
//  - Temporal's OpenAI Agents integration with its documented approve-then-continue-as-new pattern (events per
//    approval cycle and per run, decision → tool time);
//  - the OpenAI Agents SDK in-process, not durable: the same scenario, approved at once, milliseconds per model turn.
// The alternatives live in bench/alternatives (their own package and versions), installed here on first use.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { Runner } from '../client/runner';
import { projectRoot } from '../test/support/toolchain';
import { p50p99 } from './history';
import { floorApprove, floorPaused } from './floorWorkflow';

type P = { p50: number; p99: number };
export interface AlternativesResult {
  iterations: number;
  temporalAgents: { cycleEvents: number; runEvents: number; decisionToToolMs: P };
  inProcess: { runMs: P; turnsPerRun: number };
  countersign: { runMs: P; turnsPerRun: number };
  /** Fast mode (COUNTERSIGN_FAST_MODE: model calls as local activities), the same loop. */
  countersignFast?: { runMs: P; turnsPerRun: number };
  /** The agent floor (bench/floorWorkflow.ts), driven the same way: update-with-start until it waits, a signal, the result. */
  floorAgent?: { runMs: P; turnsPerRun: number };
}

const dir = join(projectRoot, 'bench/alternatives');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} failed (exit ${code}):\n${err.slice(-3000)}`))));
  });
}

async function installAlternatives(log: (line: string) => void): Promise<void> {
  if (existsSync(join(dir, 'node_modules/@temporalio/openai-agents')) && existsSync(join(dir, 'node_modules/@openai/agents'))) return;
  log('installing the alternatives (bench/alternatives: @temporalio/openai-agents, @openai/agents)…');
  await run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund']);
}

/** The last line a driver prints is its JSON result. */
async function driver(file: string, env: NodeJS.ProcessEnv): Promise<unknown> {
  const out = await run(process.execPath, ['--require', 'tsx/cjs', join(dir, file)], env);
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** Countersign through its client library, shaped like the SDK's loop: run, approve the interruptions, run the state. */
async function countersignRuns(client: Client, taskQueue: string, iterations: number): Promise<AlternativesResult['countersign']> {
  const runner = new Runner(client, { taskQueue });
  const perRun: number[] = [];
  let turns = 0;
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    let result = await runner.run('email-assistant', 'Send the report to alice', { workflowId: `bench-turns-${Date.now()}-${i}` });
    const state = result.toState();
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    result = await runner.run('email-assistant', state);
    perRun.push(performance.now() - t0);
    if (!result.finalOutput?.includes('Email sent to alice@example.com')) throw new Error(`unexpected final output: ${result.finalOutput}`);
    turns += result.snapshot.turn;
  }
  return { runMs: p50p99(perRun), turnsPerRun: turns / iterations };
}

/** The agent floor through the same motions: start and wait for the pause (one update-with-start), approve, result. */
async function floorAgentRuns(client: Client, taskQueue: string, iterations: number): Promise<NonNullable<AlternativesResult['floorAgent']>> {
  const perRun: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const workflowId = `bench-floor-turns-${Date.now()}-${i}`;
    const t0 = performance.now();
    const startWorkflowOperation = new WithStartWorkflowOperation('floorAgentApproval', { taskQueue, workflowId, args: [workflowId], workflowIdConflictPolicy: 'FAIL' });
    await client.workflow.executeUpdateWithStart(floorPaused, { startWorkflowOperation });
    const handle = await startWorkflowOperation.workflowHandle();
    await handle.signal(floorApprove);
    await handle.result();
    perRun.push(performance.now() - t0);
  }
  return { runMs: p50p99(perRun), turnsPerRun: 2 };
}

export async function measureAlternatives(o: { client: Client; taskQueue: string; fastTaskQueue: string; address: string; modelBaseURL: string; iterations: number; log: (line: string) => void }): Promise<AlternativesResult> {
  await installAlternatives(o.log);
  const env = { TEMPORAL_ADDRESS: o.address, OPENAI_BASE_URL: o.modelBaseURL, BENCH_ITERATIONS: String(o.iterations), COUNTERSIGN_DEMO_OUTBOX: join(projectRoot, '.temporal/bench-outbox.jsonl') };
  o.log('alternatives: Countersign through Runner…');
  const countersign = await countersignRuns(o.client, o.taskQueue, o.iterations);
  o.log('alternatives: Countersign in fast mode…');
  const countersignFast = await countersignRuns(o.client, o.fastTaskQueue, o.iterations);
  o.log('alternatives: the agent floor…');
  const floorAgent = await floorAgentRuns(o.client, o.taskQueue, o.iterations);
  o.log('alternatives: @openai/agents in-process…');
  const inProcess = (await driver('inProcess.ts', env)) as AlternativesResult['inProcess'];
  o.log('alternatives: @temporalio/openai-agents…');
  const temporalAgents = (await driver('temporalAgents.ts', env)) as AlternativesResult['temporalAgents'];
  return { iterations: o.iterations, temporalAgents, inProcess, countersign, countersignFast, floorAgent };
}
