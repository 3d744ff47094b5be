// Approval round trip and history events per approval cycle: Countersign's agentRun against the bare floor, one
// run at a time, on an in-process worker.
import type { Client } from '@temporalio/client';
import type { ScriptedModel } from '../devtools/scriptedModel';
import { approveSignal } from '../workflows/messages';
import { cycleEvents, type Event, p50p99, sinceSignal } from './history';
import { floorApprove } from './floorWorkflow';

export interface RoundTripResult {
  iterations: number;
  roundTripMs: { countersignToTool: P; countersignToNextModelCall: P; floorToTool: P };
  historyEvents: { countersignCycle: number; floorCycle: number; countersignRun: number; floorRun: number };
}
type P = { p50: number; p99: number };

export async function measureRoundTrip(client: Client, taskQueue: string, model: ScriptedModel, iterations: number): Promise<RoundTripResult> {
  const cs = { tool: [] as number[], nextModel: [] as number[], events: [] as number[], cycle: [] as number[] };
  const floor = { tool: [] as number[], events: [] as number[], cycle: [] as number[] };
  for (let i = 0; i < iterations; i++) {
    const id = `bench-cs-${Date.now()}-${i}`;
    model.script(id, [{ toolCalls: [{ name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' }] }, { text: 'done' }]);
    const handle = await client.workflow.start('agentRun', { taskQueue, workflowId: id, args: [{ agent: 'email-assistant', input: 'bench' }] });
    // Decide a run that waits quietly, as a person's decision finds it: paused, its "approval requested"
    // notification delivered (deciding within milliseconds would time that activity too).
    while ((await handle.query<unknown[]>('pendingApprovals')).length === 0 || (await handle.describe()).raw.pendingActivities?.length) await new Promise((r) => setTimeout(r, 5));
    await handle.signal(approveSignal, { callId: 'c1' });
    await handle.result();
    const events = (await handle.fetchHistory()).events as Event[];
    cs.tool.push(sinceSignal(events, 'runTool'));
    cs.nextModel.push(sinceSignal(events, 'modelTurn'));
    cs.events.push(events.length);
    cs.cycle.push(cycleEvents(events, 'runTool'));

    const fh = await client.workflow.start('floorApproval', { taskQueue, workflowId: `bench-floor-${Date.now()}-${i}` });
    await fh.signal(floorApprove);
    await fh.result();
    const fevents = (await fh.fetchHistory()).events as Event[];
    floor.tool.push(sinceSignal(fevents, 'floorTool'));
    floor.events.push(fevents.length);
    floor.cycle.push(cycleEvents(fevents, 'floorTool'));
  }
  return {
    iterations,
    roundTripMs: { countersignToTool: p50p99(cs.tool), countersignToNextModelCall: p50p99(cs.nextModel), floorToTool: p50p99(floor.tool) },
    historyEvents: { countersignCycle: p50p99(cs.cycle).p50, floorCycle: p50p99(floor.cycle).p50, countersignRun: p50p99(cs.events).p50, floorRun: p50p99(floor.events).p50 },
  };
}
