// The wire contract of standing grants: the `countersignGrants` workflow, its updates and query. Imported by the
// workflow, the planner (activities/callPlanning.ts), the client library and the CLI; the plain `temporal` CLI
// sends the same JSON. The payload schemas live in domain/grants.ts, where the rules that use them are.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AddGrantRequest, GrantsState, GrantView, RevokeGrantRequest, UseGrantRequest, UseGrantResult } from '../domain/grants';

export { addGrantRequestSchema, revokeGrantRequestSchema, useGrantRequestSchema } from '../domain/grants';
export type { AddGrantRequest, GrantView, RevokeGrantRequest, UseGrantRequest, UseGrantResult, Where } from '../domain/grants';

export const GRANTS_WORKFLOW_TYPE = 'countersignGrants';
/** One grants workflow per namespace, on a worker's task queue. */
export const GRANTS_WORKFLOW_ID = 'countersign-grants';
/** Names another one (for deployments, or test suites, that share a namespace); the worker and its clients must agree. */
export const GRANTS_WORKFLOW_ID_ENV = 'COUNTERSIGN_GRANTS_WORKFLOW_ID';
export const grantsWorkflowIdOf = (env: Record<string, string | undefined>): string => env[GRANTS_WORKFLOW_ID_ENV] || GRANTS_WORKFLOW_ID;

/** Continue-as-new past this many history events (or when the server suggests it). */
export const GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS = 2000;

/** What `addGrant` answers: the new grant's id, its expiry, and a warning when it can never apply as made. */
export interface AddGrantResult {
  grantId: string;
  expiresAt: string;
  warning?: string;
}

/** The workflow's input: nothing when the first grant starts it; a continued-as-new run gets what the last one held. */
export interface GrantsCarry {
  state?: GrantsState;
  /** Continue as new past this many history events (default GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS); carried along. */
  continueAsNewAfterEvents?: number;
}

/** Refused in one line, nothing created: malformed (by the validator), or an agent or tool unknown or not grantable (the handler asks the worker). */
export const addGrantUpdate = defineUpdate<AddGrantResult, [AddGrantRequest]>('addGrant');
/** Refused for an unknown grant id, or one no longer active. */
export const revokeGrantUpdate = defineUpdate<{ grantId: string; revokedAt: string }, [RevokeGrantRequest]>('revokeGrant');
/** Consumes one use of the first matching grant: `{ grantId, grantedBy }`, or null. Idempotent per callKey. */
export const useGrantUpdate = defineUpdate<UseGrantResult, [UseGrantRequest]>('useGrant');
/** The grants that apply now. */
export const grantsQuery = defineQuery<GrantView[]>('grants');
