// What a paused run costs its worker when a decision finds it evicted from the cache: the worker replays its
// history from the start. The seed run's whole history (Countersign) and the agent floor's, each replayed many
// times in this process; CPU per replay (process-wide: the workflow threads included). This is most of the worker
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

export async function cpuPerReplay(bundle: { code: string }, history: History, n: number): Promise<number> {
  const histories = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ workflowId: `replay-${i}`, history }));
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories(20)))
    if (r.error) throw r.error; // warm up
  const c0 = process.cpuUsage();
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories(n))) if (r.error) throw r.error;
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
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
  return {
    replays: o.replays,
    countersign: {
      events: countersign.events?.length ?? 0,
      cpuMs: await cpuPerReplay(o.bundle, countersign, o.replays),
    },
    floorAgent: { events: floorAgent.events?.length ?? 0, cpuMs: await cpuPerReplay(o.bundle, floorAgent, o.replays) },
  };
}
