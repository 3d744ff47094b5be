// Reviews of audit-only calls, the pure state of the `countersignReviews` workflow: one review per call (a second is
// refused, so the record cannot be rewritten), the newest MAX_KEPT_REVIEWS kept, and what a continued-as-new run
// starts with. No Temporal imports: the workflow wires it to its update and query; unit tests drive it directly.
import type { Review, ReviewRequest, ReviewsState } from '../../contract/reviewMessages';
import { Failure } from '../../contract/failureTypes';
import { Refusal } from '../refusal';

/**
 * Reviews kept, the newest; older ones are forgotten (their calls count as unreviewed again). With the request's
 * bounds (names of 200 characters, notes of 500) this keeps the state, and its continue-as-new input, under 2 MB.
 */
export const MAX_KEPT_REVIEWS = 1000;

export const emptyReviews = (): ReviewsState => ({ reviews: [] });

export class ReviewError extends Refusal {
  override name = 'ReviewError';
  readonly failureType = Failure.ReviewRefused;
}

export const reviewOf = (s: ReviewsState, workflowId: string, callId: string): Review | undefined =>
  s.reviews.find((r) => r.workflowId === workflowId && r.callId === callId);

/** Why this review cannot be recorded (before it enters history), or undefined. */
export function checkReview(s: ReviewsState, req: Pick<ReviewRequest, 'workflowId' | 'callId'>): string | undefined {
  const done = reviewOf(s, req.workflowId, req.callId);
  if (!done) return undefined;
  return `call ${req.callId} of run ${req.workflowId} was already ${done.verdict} by ${done.reviewer} at ${done.reviewedAt}: a review is final`;
}

/** Records the review as the newest, dropping the oldest beyond MAX_KEPT_REVIEWS. */
export function addReview(s: ReviewsState, req: ReviewRequest, nowMs: number): Review {
  const problem = checkReview(s, req);
  if (problem) throw new ReviewError(problem);
  const note = req.note?.trim();
  const review: Review = {
    workflowId: req.workflowId,
    callId: req.callId,
    ...(req.toolName ? { toolName: req.toolName } : {}),
    verdict: req.verdict,
    ...(note ? { note } : {}),
    reviewer: req.reviewer,
    reviewedAt: new Date(nowMs).toISOString(),
  };
  s.reviews.push(review);
  if (s.reviews.length > MAX_KEPT_REVIEWS) s.reviews.splice(0, s.reviews.length - MAX_KEPT_REVIEWS);
  return review;
}

/** The reviews, oldest first; only one run's with `workflowId`. Copies: a query's answer is not the state. */
export function listReviews(s: ReviewsState, workflowId?: string): Review[] {
  return s.reviews.filter((r) => workflowId === undefined || r.workflowId === workflowId).map((r) => ({ ...r }));
}

/** What a continued-as-new workflow starts with: the reviews kept. */
export function carryReviews(s: ReviewsState): ReviewsState {
  return { reviews: s.reviews.slice(-MAX_KEPT_REVIEWS) };
}
