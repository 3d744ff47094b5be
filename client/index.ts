// The client library: start runs, read their state, decide their pending calls.
export { Runner, AgentRunResult, type RunOptions, type RunnerConnectOptions, type AgentRef } from './run/runner';
export type { PendingCall } from './run/runReads';
export { StreamedRunResult } from './run/runStream';
export { LiveSession, type ToolApprovalRequired } from './run/live';
export { followEvents, type FollowOptions } from './run/eventFollowing';
export { workerPolls, RECENT_POLL_MS } from './run/workerPresence';
export { RunState, RUN_STATE_SCHEMA_VERSION, type ApproveOptions, type RejectOptions } from './run/runState';
export type { Interruption } from './run/interruption';
export * from './errors';
export {
  FAILURES,
  FAILURE_TYPES,
  Failure,
  isFailureType,
  type FailureInfo,
  type FailureType,
} from '../contract/failureTypes';
export { connectClient } from './clientConnection';
export * from './sessions/sessionErrors';
export { describeSession, type SessionView, type SessionRunRow } from './sessions/sessions';
export { followModelDeltas, type ModelDelta, type FollowModelDeltasOptions } from './run/modelDeltas';
export * from '../contract/messages';
export type * from '../contract/runViews';
export type * from '../contract/runEvents';
export { describeZodError } from '../contract/zodErrors';
export type { AgentSnapshot, ToolSnapshot } from '../core/run/agentSnapshot';
export type { ConversationItem, Usage } from '../contract/items';
export {
  approvalsAcross,
  approvalsPage,
  complianceReport,
  type ApprovalsQuery,
  type ApprovalsPageQuery,
  type ReportQuery,
} from './approvals/approvalsReport';
export type { ComplianceReport, LedgerPage, ReportGroup } from '../storage/ledger/ledgerStore';
export type { ApprovalRecord, ApprovalStatus } from '../core/approvals/approvalHistory';
export { signDecision, readPrivateKey, generateApproverKey, type ApproverPrivateKey } from './signing/decisionSigning';
export type { Signing } from './run/runState';
export { grant, listGrants, revokeGrant, type GrantRequest, type GrantsOptions } from './grants/grantsClient';
export { signGrant, type GrantToSign } from './signing/grantSigning';
export {
  reviewCall,
  listReviews,
  type ReviewCallRequest,
  type ReviewsOptions,
  type Review,
  type ReviewVerdict,
} from './approvals/reviews';
