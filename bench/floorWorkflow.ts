// The floor Countersign is measured against: a bare Temporal workflow that waits for one signal and then runs one
// activity. Whatever Countersign adds on top of this is its cost.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

const { floorTool } = proxyActivities<{ floorTool(): Promise<string> }>({ startToCloseTimeout: '1 minute' });
export const floorApprove = defineSignal('approve');

export async function floorApproval(): Promise<string> {
  let approved = false;
  setHandler(floorApprove, () => void (approved = true));
  await condition(() => approved);
  return floorTool();
}
