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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function cpuPerReplay(
  bundle: { code: string },
  history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>>,
  n: number,
): Promise<number> {
  const histories = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ workflowId: `replay-${i}`, history }));
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories(20)))
    if (r.error) throw r.error; // warm up
  const c0 = process.cpuUsage();
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories(n))) if (r.error) throw r.error;
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
}

export async function measureReplayCost(o: {
  client: Client;
  taskQueue: string;
  model: ScriptedModel;
  bundle: { code: string };
  replays: number;
}): Promise<ReplayCostResult> {
  const runner = new Runner(o.client, { taskQueue: o.taskQueue });
  const id = `bench-replay-${Date.now()}`;
  o.model.script(id, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' }] },
    { text: 'done' },
  ]);
  const paused = await runner.run('email-assistant', 'bench', { workflowId: id });
  await runner.run('email-assistant', paused.toState().approve('c1'));
  const csHistory = await o.client.workflow.getHandle(id).fetchHistory();

  const fid = `bench-replay-floor-${Date.now()}`;
  o.model.script(fid, [{ text: 'tool please' }, { text: 'done' }]);
  const fh = await o.client.workflow.start('floorAgentApproval', {
    taskQueue: o.taskQueue,
    workflowId: fid,
    args: [fid],
  });
  while ((await fh.query(floorAsked)) === 0) await sleep(5);
  await fh.signal(floorApprove);
  await fh.result();
  const floorHistory = await fh.fetchHistory();

  return {
    replays: o.replays,
    countersign: { events: csHistory.events?.length ?? 0, cpuMs: await cpuPerReplay(o.bundle, csHistory, o.replays) },
    floorAgent: {
      events: floorHistory.events?.length ?? 0,
      cpuMs: await cpuPerReplay(o.bundle, floorHistory, o.replays),
    },
  };
}
