// The floors Countersign is measured against.
// floorApproval: a bare Temporal workflow that waits for one signal and then runs one activity (the floor).
// floorAgentApproval: the least any durable agent does for one approval — a model call, a wait for the signal,
// the tool, a model call after it — with no approval book, audit, search attributes or queries.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

export interface FloorActivities {
  floorTool(): Promise<string>;
  floorModel(runId: string): Promise<string>;
}

const { floorTool, floorModel } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
export const floorApprove = defineSignal('approve');

function approval(): () => Promise<void> {
  let approved = false;
  setHandler(floorApprove, () => void (approved = true));
  return () => condition(() => approved);
}

export async function floorApproval(): Promise<string> {
  const approved = approval();
  await approved();
  return floorTool();
}

export async function floorAgentApproval(runId: string): Promise<string> {
  const approved = approval();
  await floorModel(runId);
  await approved();
  await floorTool();
  return floorModel(runId);
}
