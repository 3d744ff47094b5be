// The workflows this worker registers (the bundle entry point).
export { agentRun } from './agentRun';
export { countersignGrants } from './grantsWorkflow';
export { countersignReviews } from './reviewsWorkflow';
export { countersignGatewayCall } from './gatewayCall';
