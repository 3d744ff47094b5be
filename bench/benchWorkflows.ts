// The in-process bench worker runs Countersign's agentRun and the floors.
export { agentRun } from '../workflows/agentRun';
export { floorAgentApproval, floorAgentTurns, floorApproval } from './floorWorkflow';
