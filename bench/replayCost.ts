// What a paused run costs its worker when a decision finds it evicted from the cache: the worker replays its
// history from the start. The seed run's whole history (Countersign) and the agent floor's, each replayed many
// times in this process, in turn; CPU per replay (process-wide: the workflow threads included). This is most of the worker
// CPU the scale section measures per approval.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { ScriptedModel } from '../devtools/scriptedModel';
import { Runner } from '../client/run/runner';
import { floorApprove, floorAsked } from './floorWorkflow';

export interface ReplayCostResult {
  replays: number;
  countersign: { events: number; cpuMs: number };
  floorAgent: { events: number; cpuMs: number };
}

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU per replay of each history, replayed in turn in one replay worker (a, b, a, b, …; the first 20 rounds warm
 * up): each gets the CPU spent until its result came, so a load that comes and goes on the machine falls on both
 * alike and their ratio holds where two separate measurements drift apart.
 */
export async function cpuPerReplays<K extends string>(
  bundle: { code: string },
  histories: Record<K, History>,
  n: number,
): Promise<Partial<Record<K, number>>> {
  const names = Object.keys(histories) as K[];
  const warmUp = 20;
  const rounds = function* () {
    for (let i = 0; i < warmUp + n; i++)
      for (const name of names) yield { workflowId: `${name}:${i}`, history: histories[name] };
  };
  const spent = new Map<string, number>();
  let last = process.cpuUsage();
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, rounds())) {
    if (r.error) throw r.error;
    const now = process.cpuUsage();
    const [name, i] = r.workflowId.split(':') as [K, string];
    if (Number(i) >= warmUp)
      spent.set(name, (spent.get(name) ?? 0) + (now.user - last.user + now.system - last.system) / 1000);
    last = now;
  }
  return Object.fromEntries(names.map((name) => [name, (spent.get(name) ?? 0) / n])) as Partial<Record<K, number>>;
}

/** The seed run (one approval, two model turns) and the agent floor's run, recorded on `taskQueue`'s worker. */
export async function recordSeedHistories(
  client: Client,
  taskQueue: string,
  model: ScriptedModel,
): Promise<{ countersign: History; floorAgent: History }> {
  const runner = new Runner(client, { taskQueue });
  const id = `bench-replay-${Date.now()}`;
  model.script(id, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' }] },
    { text: 'done' },
  ]);
  const paused = await runner.run('email-assistant', 'bench', { workflowId: id });
  await runner.run('email-assistant', paused.toState().approve('c1'));
  const countersign = await client.workflow.getHandle(id).fetchHistory();

  const fid = `bench-replay-floor-${Date.now()}`;
  model.script(fid, [{ text: 'tool please' }, { text: 'done' }]);
  const fh = await client.workflow.start('floorAgentApproval', { taskQueue, workflowId: fid, args: [fid] });
  while ((await fh.query(floorAsked)) === 0) await sleep(5);
  await fh.signal(floorApprove);
  await fh.result();
  return { countersign, floorAgent: await fh.fetchHistory() };
}

export async function measureReplayCost(o: {
  client: Client;
  taskQueue: string;
  model: ScriptedModel;
  bundle: { code: string };
  replays: number;
}): Promise<ReplayCostResult> {
  const { countersign, floorAgent } = await recordSeedHistories(o.client, o.taskQueue, o.model);
  const cpu = await cpuPerReplays(o.bundle, { countersign, floorAgent }, o.replays);
  return {
    replays: o.replays,
    countersign: { events: countersign.events?.length ?? 0, cpuMs: cpu.countersign! },
    floorAgent: { events: floorAgent.events?.length ?? 0, cpuMs: cpu.floorAgent! },
  };
}
