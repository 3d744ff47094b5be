// The client library: start runs, read their state, decide their pending calls.
export { Runner, AgentRunResult, type RunOptions, type RunnerConnectOptions } from './runner';
export type { PendingCall } from './runReads';
export { RunState, RUN_STATE_SCHEMA_VERSION, type Interruption, type ApproveOptions, type RejectOptions } from './runState';
export * from './errors';
export { connectClient } from './connect';
export * from '../workflows/messages';
export type { AgentSnapshot, ToolSnapshot } from '../domain/agentSnapshot';
export type { ConversationItem, Usage } from '../domain/items';
