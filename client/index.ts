// The client library: start runs, read their state, decide their pending calls.
export { Runner, AgentRunResult, type RunOptions, type RunnerConnectOptions } from './runner';
export type { PendingCall } from './runReads';
export { StreamedRunResult } from './runStream';
export { LiveSession, type ToolApprovalRequired } from './live';
export { followEvents, type FollowOptions } from './runEvents';
export { RunState, RUN_STATE_SCHEMA_VERSION, type Interruption, type ApproveOptions, type RejectOptions } from './runState';
export * from './errors';
export { connectClient } from './connect';
export * from './sessionErrors';
export { describeSession, type SessionView, type SessionRunRow } from './sessions';
export { followModelDeltas, type ModelDelta, type FollowModelDeltasOptions } from './modelDeltas';
export * from '../workflows/messages';
export type { AgentSnapshot, ToolSnapshot } from '../domain/agentSnapshot';
export type { ConversationItem, Usage } from '../domain/items';
export { approvalsAcross, type ApprovalsQuery } from './approvalsReport';
export type { ApprovalRecord, ApprovalStatus } from '../domain/approvalHistory';
export { signDecision, readPrivateKey, generateApproverKey, type ApproverPrivateKey } from './decisionSigning';
export type { Signing } from './runState';
export type { InboxOptions } from './inbox/server';
/** The approvals inbox (`countersign serve`) in your own process; loaded on first use (it brings fastify). */
export const startInbox = (o: import('./inbox/server').InboxOptions) => (require('./inbox/server') as typeof import('./inbox/server')).startInbox(o);
export { grant, listGrants, revokeGrant, type GrantRequest, type GrantsOptions } from './grants';
