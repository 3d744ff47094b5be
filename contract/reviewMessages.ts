// The wire contract of reviews of audit-only calls: the `countersignReviews` workflow, its update and query. A tool
// with `needsApproval: 'audit'` runs at once; a reviewer looks at the call afterwards, often after its run has
// ended, when the run takes no update any more: so the reviews live in this workflow, one per namespace, like the
// standing grants (contract/grantMessages.ts). The rules over these shapes live in core/approvals/reviewsState.ts.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { shareAcrossRuns } from './sharedModules';
import type { LedgerReview } from './ledgerRecords';

export const REVIEW_VERDICTS = ['reviewed', 'flagged'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** A note is for people: at most this many characters. */
export const MAX_REVIEW_NOTE_CHARS = 500;

const name = z.string().min(1, 'must not be empty').max(200, 'at most 200 characters');

/** Update `review`: `{"workflowId":"run-1","callId":"c1","toolName":"refund","verdict":"flagged","note":"too large","reviewer":"ann"}` */
export const reviewRequestSchema = shareAcrossRuns('reviews.reviewRequestSchema', () =>
  z
    .strictObject({
      workflowId: name,
      callId: name,
      /** The call's tool, as its run's audit names it (the client library fills it in). */
      toolName: name.optional(),
      verdict: z.enum(REVIEW_VERDICTS, { error: 'must be "reviewed" or "flagged"' }),
      note: z.string().max(MAX_REVIEW_NOTE_CHARS, `at most ${MAX_REVIEW_NOTE_CHARS} characters`).optional(),
      reviewer: name,
    })
    .refine((r) => r.verdict !== 'flagged' || !!r.note?.trim(), {
      message: 'a flag needs a note saying why',
      path: ['note'],
    }),
);
export type ReviewRequest = z.infer<typeof reviewRequestSchema>;

/** One review, as recorded: the audit of reviews (who, what verdict, why, when). */
export interface Review {
  workflowId: string;
  callId: string;
  toolName?: string;
  verdict: ReviewVerdict;
  note?: string;
  reviewer: string;
  reviewedAt: string;
}

export interface ReviewsState {
  /** Oldest first; at most MAX_KEPT_REVIEWS (core/approvals/reviewsState.ts) are kept. */
  reviews: Review[];
}

export const REVIEWS_WORKFLOW_TYPE = 'countersignReviews';
/**
 * One reviews workflow per namespace, on a worker's task queue, started by the first review.
 * COUNTERSIGN_REVIEWS_WORKFLOW_ID (temporal.config.ts) names another one (deployments or test suites that share a namespace).
 */
export const REVIEWS_WORKFLOW_ID = 'countersign-reviews';

/** Continue-as-new past this many history events (or when the server suggests it). */
export const REVIEWS_CONTINUE_AS_NEW_AFTER_EVENTS = 2000;

/** The workflow's input: nothing when the first review starts it; a continued-as-new run gets what the last one held. */
export interface ReviewsCarry {
  state?: ReviewsState;
  continueAsNewAfterEvents?: number;
  /** The approvals ledger's review chain (workflows/reviewsLedger.ts): absent in carries of workflows without it. */
  ledger?: ReviewsLedgerCarry;
}

/** Reviews numbered so far in the workflow's ledger chain, and those the ledger has not confirmed yet (sent again). */
export interface ReviewsLedgerCarry {
  seq: number;
  unconfirmed: LedgerReview[];
}

/** Refused in one line, nothing recorded: malformed, or a call already reviewed. */
export const reviewUpdate = defineUpdate<Review, [ReviewRequest]>('review');
/** The reviews held, oldest first; `{ workflowId }` narrows them to one run's. */
export const reviewsQuery = defineQuery<Review[], [{ workflowId?: string }?]>('reviews');
