// Approval round trip and history events per approval cycle: Countersign's agentRun (started by the client library,
// as services start it) against the bare floor and the agent floor, one run at a time, on an in-process worker.
import type { Client } from '@temporalio/client';
import type { ScriptedModel } from '../devtools/scriptedModel';
import { Runner } from '../client/run/runner';
import { approveSignal } from '../contract/messages';
import { HitlStatus } from '../contract/searchAttributes';
import { cycleEvents, type Event, p50p99, sinceSignal } from './history';
import { floorApprove, floorAsked } from './floorWorkflow';
import { type Actions, approvalWindow, countActions } from './actions';

export interface RoundTripResult {
  iterations: number;
  roundTripMs: { countersignToTool: P; countersignToNextModelCall: P; floorToTool: P };
  historyEvents: {
    countersignCycle: number;
    floorCycle: number;
    countersignRun: number;
    floorRun: number;
    floorAgentRun?: number;
    floorAgentCycle?: number;
    /** Countersign on a worker with the approvals ledger (SQLite): the same seed run. */
    countersignLedgerRun?: number;
    countersignLedgerCycle?: number;
  };
  /** Temporal Cloud actions (bench/actions.ts) of the whole run and of one approval, from one run's history each. */
  actions?: Record<ActionSystem, { run: Actions; cycle: Actions } | undefined>;
}
type P = { p50: number; p99: number };
export type ActionSystem = 'countersign' | 'countersignLedger' | 'floor' | 'floorAgent';

/** The run's actions, and one approval's: from its first signal to the completion of the `tool` it approved. */
function actionsOf(events: Event[], tool: string): { run: Actions; cycle: Actions } {
  const signal = events.find((e) => e.workflowExecutionSignaledEventAttributes)!;
  return { run: countActions(events), cycle: approvalWindow(events, tool, Number(String(signal.eventId)) - 1).actions };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The seed run on `runner`'s queue, decided by one `approve` signal once it waits quietly: its history. */
async function seedRun(client: Client, runner: Runner, model: ScriptedModel, id: string): Promise<Event[]> {
  model.script(id, [
    {
      toolCalls: [{ name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' }],
    },
    { text: 'done' },
  ]);
  await runner.startOnly('email-assistant', 'bench', { workflowId: id });
  const handle = client.workflow.getHandle(id);
  // Decide a run that waits quietly, as a person's decision finds it: paused, nothing in flight. Read through
  // describe (its search attributes), not a query: a query that reaches a run during its first workflow task
  // makes the worker complete that task early, and the history then has one workflow task more than a run
  // nobody queried (34 events instead of 31), which is the bench's doing, not the run's.
  while (
    await handle
      .describe()
      .then(
        (d) =>
          d.typedSearchAttributes.get(HitlStatus) !== 'AwaitingApproval' || (d.raw.pendingActivities?.length ?? 0) > 0,
      )
  )
    await sleep(5);
  await handle.signal(approveSignal, { callId: 'c1' });
  await handle.result();
  return (await handle.fetchHistory()).events as Event[];
}

/** `ledgerTaskQueue`: a worker's queue whose runs write the approvals ledger, for the events and actions it adds. */
export async function measureRoundTrip(
  client: Client,
  taskQueue: string,
  model: ScriptedModel,
  iterations: number,
  ledgerTaskQueue?: string,
): Promise<RoundTripResult> {
  const runner = new Runner(client, { taskQueue });
  const ledgerRunner = ledgerTaskQueue ? new Runner(client, { taskQueue: ledgerTaskQueue }) : undefined;
  const cs = { tool: [] as number[], nextModel: [] as number[], events: [] as number[], cycle: [] as number[] };
  const floor = { tool: [] as number[], events: [] as number[], cycle: [] as number[] };
  const agentFloor = { events: [] as number[], cycle: [] as number[] };
  const withLedger = { events: [] as number[], cycle: [] as number[] };
  const actions: Partial<Record<ActionSystem, { run: Actions; cycle: Actions }>> = {};
  for (let i = 0; i < iterations; i++) {
    const events = await seedRun(client, runner, model, `bench-cs-${Date.now()}-${i}`);
    actions.countersign ??= actionsOf(events, 'runTool');
    cs.tool.push(sinceSignal(events, 'runTool'));
    cs.nextModel.push(sinceSignal(events, 'modelTurn'));
    cs.events.push(events.length);
    cs.cycle.push(cycleEvents(events, 'runTool'));

    const fh = await client.workflow.start('floorApproval', {
      taskQueue,
      workflowId: `bench-floor-${Date.now()}-${i}`,
    });
    await fh.signal(floorApprove);
    await fh.result();
    const fevents = (await fh.fetchHistory()).events as Event[];
    floor.tool.push(sinceSignal(fevents, 'floorTool'));
    floor.events.push(fevents.length);
    floor.cycle.push(cycleEvents(fevents, 'floorTool'));
    actions.floor ??= actionsOf(fevents, 'floorTool');

    // The agent floor's seed run, decided the same way: once it waits (a query: no event), one signal.
    const aid = `bench-agent-floor-${Date.now()}-${i}`;
    model.script(aid, [{ text: 'tool please' }, { text: 'done' }]);
    const ah = await client.workflow.start('floorAgentApproval', { taskQueue, workflowId: aid, args: [aid] });
    while ((await ah.query(floorAsked)) === 0 || (await ah.describe()).raw.pendingActivities?.length) await sleep(5);
    await ah.signal(floorApprove);
    await ah.result();
    const aevents = (await ah.fetchHistory()).events as Event[];
    agentFloor.events.push(aevents.length);
    agentFloor.cycle.push(cycleEvents(aevents, 'floorTool'));
    actions.floorAgent ??= actionsOf(aevents, 'floorTool');

    if (ledgerRunner) {
      const levents = await seedRun(client, ledgerRunner, model, `bench-cs-ledger-${Date.now()}-${i}`);
      withLedger.events.push(levents.length);
      withLedger.cycle.push(cycleEvents(levents, 'runTool'));
      actions.countersignLedger ??= actionsOf(levents, 'runTool');
    }
  }
  return {
    iterations,
    roundTripMs: {
      countersignToTool: p50p99(cs.tool),
      countersignToNextModelCall: p50p99(cs.nextModel),
      floorToTool: p50p99(floor.tool),
    },
    historyEvents: {
      countersignCycle: p50p99(cs.cycle).p50,
      floorCycle: p50p99(floor.cycle).p50,
      countersignRun: p50p99(cs.events).p50,
      floorRun: p50p99(floor.events).p50,
      floorAgentRun: p50p99(agentFloor.events).p50,
      floorAgentCycle: p50p99(agentFloor.cycle).p50,
      ...(ledgerRunner
        ? { countersignLedgerRun: p50p99(withLedger.events).p50, countersignLedgerCycle: p50p99(withLedger.cycle).p50 }
        : {}),
    },
    actions: {
      countersign: actions.countersign,
      countersignLedger: actions.countersignLedger,
      floor: actions.floor,
      floorAgent: actions.floorAgent,
    },
  };
}
