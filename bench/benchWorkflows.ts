// The bench worker runs both: Countersign's agentRun and the bare floor.
export { agentRun } from '../workflows/agentRun';
export { floorApproval } from './floorWorkflow';
