// Growth: what a run's length and size cost in history. Countersign (the real worker, payload storage on: the file
// store in a fresh folder, 256 KiB threshold) and the agent floor at BENCH_GROWTH_TURNS turns, one tool call a turn
// and every 5th approved; then a conversation of megabytes: 12 newsletters of about 280 KB, each approved, across
// continue-as-new. A history that grows linearly has flat bytes per turn; an offloaded payload is a reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { defaultRegistry } from '../agents';
import { type AgentRunResult, Runner } from '../client';
import type { ScriptedModel } from '../devtools/scriptedModel';
import type { ScriptStep } from '../devtools/scriptSteps';
import { dataConverterOf, openPayloadStorage } from '../storage/payloadStorage';
import type { ModelEndpoint, PayloadStorageSettings } from '../temporal.config';
import { createWorker } from '../worker/createWorker';
import { floorActivities } from './floorActivities';
import { floorApprove, floorAsked } from './floorWorkflow';
import { historyFigures } from './history';
import { folderBytes, type KindFigures, renderBreakdown, storeBreakdown, storeFiles } from './storeBreakdown';

export interface GrowthRow {
  system: 'countersign' | 'floorAgent';
  turns: number;
  runs: number;
  events: number;
  bytes: number;
  bytesPerTurn: number;
  largestPayload: number;
  /** Bytes this run added to the payload store (Countersign keeps the model's transcript there). */
  storeBytes: number;
  ms: number;
}

export interface NewsletterResult {
  completed: boolean;
  error?: string;
  ms: number;
  runs: number;
  events: number;
  bytes: number;
  largestPayload: number;
  storeBytes: number;
  /** The newsletters' bodies, the content the store holds at the least. */
  contentBytes: number;
  /** The bytes the run added to the store, by kind of payload (bench/storeBreakdown.ts). */
  storeByKind?: Record<string, KindFigures>;
}

export interface GrowthResult {
  approveEvery: number;
  thresholdBytes: number;
  turns: GrowthRow[];
  newsletters: NewsletterResult;
}

export interface GrowthContext {
  /** A fresh dev server for the section. */
  startServer(): Promise<TestWorkflowEnvironment>;
  /** The bench bundle: agentRun and the floors. */
  workflowBundle: { code: string };
  model: ScriptedModel;
  modelSettings: ModelEndpoint;
  turns: number[];
  log(line: string): void;
}

const APPROVE_EVERY = 5;
export const NEWSLETTERS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `turns` turns of one tool call: `lookup_contact` (no approval), every 5th a `send_email` (approval); then an answer. */
export const turnsScript = (turns: number): ScriptStep[] => [
  ...Array.from({ length: turns }, (_, i) =>
    i % APPROVE_EVERY === APPROVE_EVERY - 1
      ? {
          toolCalls: [
            {
              name: 'send_email',
              arguments: { to: 'bob@example.com', subject: `Update ${i}`, body: `Turn ${i}` },
              callId: `mail-${i}`,
            },
          ],
        }
      : { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'bob' }, callId: `look-${i}` }] },
  ),
  { text: `Done after ${turns} turns.` },
];

const newsletter = (n: number, bytes: number) =>
  `Newsletter ${n}\n${'All the news that fits. '.repeat(Math.ceil(bytes / 24))}`.slice(0, bytes);
/** Alice's 12 newsletters, one `send_email` a turn (callIds news-1…news-12), each body `bytes` long; then an answer. */
export const newsletterScript = (bytes: number): ScriptStep[] => [
  ...Array.from({ length: NEWSLETTERS }, (_, i) => ({
    toolCalls: [
      {
        name: 'send_email',
        arguments: { to: 'alice@example.com', subject: `Newsletter ${i + 1}`, body: newsletter(i + 1, bytes) },
        callId: `news-${i + 1}`,
      },
    ],
  })),
  { text: `All ${NEWSLETTERS} newsletters are sent.` },
];

/** Approves whatever the run waits for until it ends. */
export async function approveUntilDone(
  runner: Runner,
  result: AgentRunResult,
): Promise<AgentRunResult & { approvals: number }> {
  let approvals = 0;
  while (result.interruptions.length) {
    const state = result.toState();
    for (const i of result.interruptions) state.approve(i, { approver: 'ann' });
    approvals += result.interruptions.length;
    result = await runner.run(state.agentName, state);
  }
  return Object.assign(result, { approvals });
}

/** Signals `approve` each time the floor asks for one, until it ends (at most `timeoutMs`). */
async function approveFloor(handle: WorkflowHandle, timeoutMs: number): Promise<void> {
  let ended = false;
  const result = handle.result().finally(() => (ended = true));
  result.catch(() => undefined); // awaited below; handled now in case the deadline throws first
  const deadline = Date.now() + timeoutMs;
  let sent = 0;
  while (!ended) {
    if (Date.now() > deadline)
      throw new Error(`floor run ${handle.workflowId} did not end within ${timeoutMs / 1000} s`);
    if ((await handle.query(floorAsked)) > sent) {
      await handle.signal(floorApprove);
      sent++;
    } else await sleep(5);
  }
  await result;
}

export async function measureGrowth(ctx: GrowthContext): Promise<GrowthResult> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-growth-'));
  const payloadStorage: PayloadStorageSettings = { kind: 'file', dir, thresholdBytes: 256 * 1024 };
  const env = await ctx.startServer();
  try {
    const taskQueue = 'growth';
    const floorQueue = 'growth-floor';
    const countersign = await createWorker({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      registry: defaultRegistry(),
      model: ctx.modelSettings,
      payloadStorage,
      workflowBundle: ctx.workflowBundle,
    });
    // The floor as in the other sections: the same bundle, its own activities, no payload storage.
    const floor = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: floorQueue,
      workflowBundle: ctx.workflowBundle,
      activities: floorActivities(ctx.model.baseURL),
    });
    // Offloaded payloads are read back through the same storage the worker writes to.
    const client = new Client({
      connection: env.connection,
      dataConverter: dataConverterOf(openPayloadStorage(payloadStorage)),
    });
    const runner = new Runner(client, { taskQueue });

    const row = async (
      system: GrowthRow['system'],
      turns: number,
      workflowId: string,
      run: () => Promise<unknown>,
    ): Promise<GrowthRow> => {
      const before = folderBytes(dir);
      const started = performance.now();
      await run();
      const ms = performance.now() - started;
      const f = await historyFigures(client, workflowId);
      return {
        system,
        turns,
        runs: f.runs,
        events: f.events,
        bytes: f.bytes,
        bytesPerTurn: f.bytes / turns,
        largestPayload: f.largestPayload,
        storeBytes: folderBytes(dir) - before,
        ms,
      };
    };

    const rows: GrowthRow[] = [];
    let newsletters: NewsletterResult | undefined;
    await countersign.runUntil(() =>
      floor.runUntil(async () => {
        for (const turns of ctx.turns) {
          ctx.log(`growth: ${turns} turns…`);
          const csId = `growth-cs-${turns}-${Date.now()}`;
          ctx.model.script(csId, turnsScript(turns));
          rows.push(
            await row('countersign', turns, csId, async () => {
              const done = await approveUntilDone(
                runner,
                await runner.run('email-assistant', 'Work through the backlog', {
                  workflowId: csId,
                  maxTurns: turns + 1,
                }),
              );
              if (done.status !== 'Completed') throw new Error(`Countersign's ${turns}-turn run ended ${done.status}`);
            }),
          );
          const floorId = `growth-floor-${turns}-${Date.now()}`;
          rows.push(
            await row('floorAgent', turns, floorId, async () => {
              const handle = await client.workflow.start('floorAgentTurns', {
                taskQueue: floorQueue,
                workflowId: floorId,
                args: [floorId, turns, APPROVE_EVERY],
              });
              await approveFloor(handle, 10 * 60_000);
            }),
          );
        }
        ctx.log('growth: 12 newsletters of 280 KB…');
        newsletters = await sendNewsletters(runner, ctx.model, dir);
        ctx.log(
          `growth: the newsletters' payload store bytes by kind:\n${renderBreakdown(new Map(Object.entries(newsletters.storeByKind ?? {})))}`,
        );
      }),
    );
    return { approveEvery: APPROVE_EVERY, thresholdBytes: 256 * 1024, turns: rows, newsletters: newsletters! };
  } finally {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The newsletters, each approved, continuing as new every 40 events; a failure is a figure, not an abort. */
async function sendNewsletters(runner: Runner, model: ScriptedModel, dir: string): Promise<NewsletterResult> {
  const workflowId = `growth-newsletters-${Date.now()}`;
  const bodyBytes = 280_000;
  model.script(workflowId, newsletterScript(bodyBytes));
  const before = folderBytes(dir);
  const filesBefore = storeFiles(dir);
  const started = performance.now();
  let completed = false;
  let error: string | undefined;
  try {
    const first = await runner.run('email-assistant', 'Send alice the 12 newsletters, one after another', {
      workflowId,
      continueAsNewAfterEvents: 40,
      maxTurns: NEWSLETTERS + 1,
    });
    const done = await approveUntilDone(runner, first);
    completed = done.status === 'Completed' && done.approvals === NEWSLETTERS;
  } catch (err) {
    error = (err as Error).message;
  }
  const ms = performance.now() - started;
  const f = await historyFigures(runner.client, workflowId);
  return {
    completed,
    ...(error ? { error } : {}),
    ms,
    runs: f.runs,
    events: f.events,
    bytes: f.bytes,
    largestPayload: f.largestPayload,
    storeBytes: folderBytes(dir) - before,
    contentBytes: NEWSLETTERS * bodyBytes,
    storeByKind: Object.fromEntries(storeBreakdown(dir, filesBefore)),
  };
}
