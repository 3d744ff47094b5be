// Reviews of audit-only calls from the client library: mark one `reviewed` or `flagged` (the reviews workflow starts
// with the first), and read them. The call is checked against its run's audit first: only a call of a tool with
// `needsApproval: 'audit'` that has run is reviewed. Every refusal is a CountersignError of one line; nothing is
// recorded when one is thrown.
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { isReviewable } from '../../core/approvals/reviewQueue';
import { rootCause } from '../../core/run/failures';
import {
  REVIEWS_WORKFLOW_TYPE,
  type Review,
  type ReviewVerdict,
  reviewRequestSchema,
  reviewUpdate,
  reviewsQuery,
} from '../../contract/reviewMessages';
import type { AuditEntry } from '../../contract/runViews';
import { describeZodError } from '../../contract/zodErrors';
import { approverNameProblem } from '../../contract/approverName';
import { setting } from '../../temporal.config';
import { CountersignError, errorForFailure } from '../errors';
import { auditOf, workflowStatus } from '../run/runReads';

export type { Review, ReviewVerdict };

export interface ReviewCallRequest {
  workflowId: string;
  callId: string;
  /** `reviewed`: it looks fine; `flagged`: it does not (a note saying why is required). */
  verdict: ReviewVerdict;
  note?: string;
  /** Who reviews it, for the record. */
  reviewer: string;
}

export interface ReviewsOptions {
  /** Default COUNTERSIGN_REVIEWS_WORKFLOW_ID, else `countersign-reviews`. */
  workflowId?: string;
}

const workflowIdOf = (o?: ReviewsOptions) => o?.workflowId ?? setting('COUNTERSIGN_REVIEWS_WORKFLOW_ID');

/** A refusal from the reviews workflow as one line; other errors as they are. */
function explained(err: unknown): Error {
  if (err instanceof WorkflowUpdateFailedError) return errorForFailure(rootCause(err), CountersignError);
  return err instanceof Error ? err : new Error(String(err));
}

/** The call's audit entries in its run; a one-line error when the run or the call is unknown. */
async function callTrail(client: Client, workflowId: string, callId: string): Promise<AuditEntry[]> {
  await workflowStatus(client, workflowId);
  const trail: AuditEntry[] = [];
  for await (const entry of auditOf(client, workflowId)) if (entry.callId === callId) trail.push(entry);
  return trail;
}

/** Why this call cannot be reviewed, from its audit entries, or undefined (with its tool's name). */
export function notReviewable(workflowId: string, callId: string, trail: AuditEntry[]): string | undefined {
  if (trail.some(isReviewable)) return undefined;
  const why = trail.length ? `its audit says ${trail[trail.length - 1]!.decision}` : 'it is not in its audit';
  return `call ${callId} of run ${workflowId} is not an audit-only call (${why}): only calls of tools with needsApproval 'audit' are reviewed (see them with: countersign approvals --status unreviewed)`;
}

/** Records a review of an audit-only call; the reviews workflow is started on `taskQueue` (a worker's) if it is not running yet. */
export async function reviewCall(
  client: Client,
  taskQueue: string,
  request: ReviewCallRequest,
  options?: ReviewsOptions,
): Promise<Review> {
  const parsed = reviewRequestSchema.safeParse(request);
  if (!parsed.success) throw new CountersignError(`invalid review: ${describeZodError(parsed.error)}`);
  const nameProblem = approverNameProblem(parsed.data.reviewer);
  if (nameProblem) throw new CountersignError(`invalid review: reviewer: ${nameProblem}`);
  const trail = await callTrail(client, request.workflowId, request.callId);
  const problem = notReviewable(request.workflowId, request.callId, trail);
  if (problem) throw new CountersignError(problem);
  const toolName = trail.find(isReviewable)!.toolName;
  const startWorkflowOperation = new WithStartWorkflowOperation(REVIEWS_WORKFLOW_TYPE, {
    workflowId: workflowIdOf(options),
    taskQueue,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'Countersign reviews of audit-only calls',
  });
  try {
    return await client.workflow.executeUpdateWithStart(reviewUpdate, {
      args: [{ ...parsed.data, ...(toolName ? { toolName } : {}) }],
      startWorkflowOperation,
    });
  } catch (err) {
    throw explained(err);
  }
}

/** The reviews recorded, oldest first (only `runWorkflowId`'s with it); none while nothing was ever reviewed. */
export async function listReviews(
  client: Client,
  options?: ReviewsOptions & { runWorkflowId?: string },
): Promise<Review[]> {
  try {
    return await client.workflow
      .getHandle(workflowIdOf(options))
      .query(reviewsQuery, options?.runWorkflowId ? { workflowId: options.runWorkflowId } : {});
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || (err as Error)?.name === 'WorkflowNotFoundError') return [];
    throw explained(err);
  }
}
