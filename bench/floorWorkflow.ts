// The floors Countersign is measured against.
// floorApproval: a bare Temporal workflow that waits for one signal and then runs one activity (the floor).
// floorAgentApproval: the least any durable agent does for one approval — a model call, a wait for the signal,
// the tool, a model call after it — with no approval book, audit, search attributes or queries.
// floorAgentTurns: the same agent floor over a run of many turns (the growth section), one tool call a turn.
import { condition, defineQuery, defineSignal, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';

export interface FloorActivities {
  floorTool(): Promise<string>;
  floorModel(runId: string): Promise<string>;
}

const { floorTool, floorModel } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
export const floorApprove = defineSignal('approve');
/** How many approvals floorAgentTurns has asked for so far: for the bench's driver (a query records no history). */
export const floorAsked = defineQuery<number>('asked');
/** Returns once the run waits for its approval: the floor's counterpart of Countersign's nextPause (per-turn timing). */
export const floorPaused = defineUpdate<void>('paused');

/** Each call waits for one more `approve` signal: one signal per approval. */
function approval(): () => Promise<void> {
  let approved = 0;
  let asked = 0;
  setHandler(floorApprove, () => void approved++);
  return () => {
    const n = ++asked;
    return condition(() => approved >= n);
  };
}

export async function floorApproval(): Promise<string> {
  const approved = approval();
  await approved();
  return floorTool();
}

export async function floorAgentApproval(runId: string): Promise<string> {
  const approved = approval();
  let asked = 0;
  setHandler(floorAsked, () => asked);
  setHandler(floorPaused, () => condition(() => asked > 0));
  await floorModel(runId);
  asked = 1;
  await approved();
  await floorTool();
  return floorModel(runId);
}

/** `turns` model calls each followed by a tool call, every `approveEvery`-th tool approved first; then a last model call. */
export async function floorAgentTurns(runId: string, turns: number, approveEvery: number): Promise<string> {
  const approved = approval();
  let asked = 0;
  setHandler(floorAsked, () => asked);
  for (let turn = 1; turn <= turns; turn++) {
    await floorModel(runId);
    if (turn % approveEvery === 0) {
      asked++;
      await approved();
    }
    await floorTool();
  }
  return floorModel(runId);
}
