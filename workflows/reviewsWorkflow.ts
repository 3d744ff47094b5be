// `countersignReviews`: the reviews of audit-only calls in a namespace. A reviewer often looks at a call after its run
// has ended, and a closed run takes no update: so the reviews live here, in one long-lived workflow (id
// `countersign-reviews`), one update at a time. The rules are in core/approvals/reviewsState.ts; here they meet
// workflow time, the validator and continue-as-new. Whether the call is an audit-only call of that run is checked by
// the client library against the run's audit before it sends (client/approvals/reviews.ts): a workflow cannot read another.
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { addReview, carryReviews, checkReview, emptyReviews, listReviews } from '../core/approvals/reviewsState';
import { Failure, refusalOf } from '../contract/failureTypes';
import {
  type ReviewRequest,
  type ReviewsCarry,
  type ReviewsState,
  REVIEWS_CONTINUE_AS_NEW_AFTER_EVENTS,
  reviewRequestSchema,
  reviewUpdate,
  reviewsQuery,
} from '../contract/reviewMessages';
import { describeZodError } from '../contract/zodErrors';
import { approverNameProblem } from '../contract/approverName';
import { ReviewsLedger } from './reviewsLedger';

const refuse = refusalOf(Failure.ReviewRefused);

/** The request, valid and not a second review of its call; else a refusal. */
function accepted(state: ReviewsState, raw: unknown): ReviewRequest {
  const parsed = reviewRequestSchema.safeParse(raw);
  if (!parsed.success) throw refuse(`invalid review request: ${describeZodError(parsed.error)}`);
  const problem = checkReview(state, parsed.data);
  if (problem) throw refuse(problem);
  return parsed.data;
}

/**
 * The validator's check: accepted, by a reviewer the name rule admits. The name is checked here only: a validator
 * leaves no history (reviews recorded before the rule replay unchanged), and no new review reaches the handler past it.
 */
function admitted(state: ReviewsState, raw: unknown): void {
  const problem = approverNameProblem(accepted(state, raw).reviewer);
  if (problem) throw refuse(`invalid review request: reviewer: ${problem}`);
}

export async function countersignReviews(carry?: ReviewsCarry): Promise<void> {
  const state: ReviewsState = carry?.state ?? emptyReviews();
  const limit = carry?.continueAsNewAfterEvents ?? REVIEWS_CONTINUE_AS_NEW_AFTER_EVENTS;
  const ledger = new ReviewsLedger(carry?.ledger); // every review also goes to the approvals ledger

  setHandler(reviewUpdate, (raw) => ledger.added(addReview(state, accepted(state, raw), Date.now())), {
    validator: (raw) => admitted(state, raw),
  });
  setHandler(reviewsQuery, (q) => listReviews(state, q?.workflowId));

  // Nothing else to do but stay: continue as new when the history grows, carrying the reviews kept.
  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= limit);
  if (ledger.carry().ledger) await ledger.settled();
  await condition(allHandlersFinished);
  await continueAsNew<typeof countersignReviews>({
    state: carryReviews(state),
    ...(carry?.continueAsNewAfterEvents ? { continueAsNewAfterEvents: limit } : {}),
    ...ledger.carry(),
  });
}
