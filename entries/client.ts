// The `countersign/client` package entry: the client library, plus `startInbox`, which lived here before
// `countersign/servers` existed (kept so that code written for 0.x still runs; new code imports it from there).
// Every value is named here rather than re-exported with `export *`: an ES module importing this CommonJS code finds
// its names by reading it, and Node does not follow `export *` into TypeScript files, so in a clone (tsx) the names
// would be missing. test/unit/entryPoints.test.ts checks the list is whole.
export type * from '../client';
export {
  Runner, AgentRunResult, StreamedRunResult, LiveSession, followEvents, RunState, RUN_STATE_SCHEMA_VERSION, connectClient,
  describeSession, followModelDeltas, describeZodError, approvalsAcross, signDecision, readPrivateKey, generateApproverKey,
  grant, listGrants, revokeGrant, signGrant, reviewCall, listReviews,
  CountersignError, RunNotFoundError, RunFinishedError, DecisionRejectedError, RunStateError, RunFailedError, OutputTypeError,
  SessionError, SessionBusyError,
  WORKFLOW_TYPE, DEFAULT_TASK_QUEUE, runInputSchema, approvePayloadSchema, rejectPayloadSchema, provideInputPayloadSchema,
  provideResultPayloadSchema, extendPayloadSchema, decisionSchema, addInputPayloadSchema, decidePayloadSchema, pageRequestSchema,
  approveSignal, provideInputSignal, provideResultSignal, addInputSignal, rejectSignal, extendSignal, decideUpdate,
  nextPauseUpdate, childStateSignal, pendingApprovalsQuery, runStateQuery, conversationQuery, auditLogQuery, eventsQuery,
} from '../client';
/** The approvals inbox in your own process; loaded on first use (it brings fastify). Prefer `countersign/servers`. */
export const startInbox = (o: import('../servers').InboxOptions) => (require('../servers') as typeof import('../servers')).startInbox(o);
export type { InboxOptions } from '../servers';
