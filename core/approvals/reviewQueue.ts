// The review queue, as approval records: every audit-only call of a run (an `audited` audit entry marked `review`)
// with what its review came to: `unreviewed` until a reviewer marks it `reviewed` or `flagged`. Pure: the client reads
// the runs' audits and the reviews workflow (client/approvals/approvalsReport.ts); this joins them.
import type { Review } from '../../contract/reviewMessages';
import type { AuditEntry } from '../../contract/runViews';
import type { ApprovalRecord } from './approvalHistory';
import { foldCall, reviewRecord } from './callFold';

/** The review statuses `countersign approvals --status` takes beside the decision statuses. */
export const REVIEW_STATUSES = ['unreviewed', 'reviewed', 'flagged'] as const;

/** The call is an audit-only call of its run: it ran at once and waits for a review. */
export const isReviewable = (entry: AuditEntry): boolean => entry.decision === 'audited' && entry.review === true;

/** One record per audit-only call of the run; `reviews` are the run's (others are ignored). */
export function reviewRecords(
  run: { workflowId: string; agent: string },
  audit: AuditEntry[],
  reviews: Review[],
): ApprovalRecord[] {
  const byCall = new Map(reviews.filter((r) => r.workflowId === run.workflowId).map((r) => [r.callId, r]));
  // The rule is core/approvals/callFold.ts's, the one the approvals ledger folds with.
  return audit.filter(isReviewable).map((entry) => {
    const review = byCall.get(entry.callId);
    const trail = foldCall(undefined, entry.callId, { entry });
    return reviewRecord(review ? foldCall(trail, entry.callId, { review }) : trail, entry, run);
  });
}
