// Reviews of audit-only calls on their own (core/approvals/reviewsState.ts, core/approvals/reviewQueue.ts): one review
// per call, the newest MAX_KEPT_REVIEWS kept and carried, what a review request may say, and the review queue's
// records joined from a run's audit and the reviews.
import {
  MAX_KEPT_REVIEWS,
  addReview,
  carryReviews,
  checkReview,
  emptyReviews,
  listReviews,
  reviewOf,
} from '../../core/approvals/reviewsState';
import { isReviewable, reviewRecords } from '../../core/approvals/reviewQueue';
import { APPROVAL_STATUSES, approvalRecords, filterRecords } from '../../core/approvals/approvalHistory';
import { type ReviewRequest, reviewRequestSchema } from '../../contract/reviewMessages';
import type { AuditEntry } from '../../contract/runViews';
import { describeZodError } from '../../contract/zodErrors';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const req = (more: Partial<ReviewRequest> = {}): ReviewRequest => ({
  workflowId: 'run-1',
  callId: 'c1',
  verdict: 'reviewed',
  reviewer: 'ann',
  ...more,
});
const audited = (callId: string, more: Partial<AuditEntry> = {}): AuditEntry => ({
  callId,
  toolName: 'refund',
  decision: 'audited',
  decidedAt: '2026-11-22T09:00:00.000Z',
  requestedAt: '2026-11-22T09:00:00.000Z',
  via: 'rule',
  review: true,
  ...more,
});

describe('the reviews state', () => {
  test('a review is recorded with its reviewer, verdict, note and time; a second one of the same call is refused and changes nothing', () => {
    const s = emptyReviews();
    const review = addReview(s, req({ verdict: 'flagged', note: '  too large  ', toolName: 'refund' }), T0);
    expect(review).toEqual({
      workflowId: 'run-1',
      callId: 'c1',
      toolName: 'refund',
      verdict: 'flagged',
      note: 'too large',
      reviewer: 'ann',
      reviewedAt: '2026-11-22T10:00:00.000Z',
    });
    const refusal = 'call c1 of run run-1 was already flagged by ann at 2026-11-22T10:00:00.000Z: a review is final';
    expect(checkReview(s, req({ reviewer: 'bob' }))).toBe(refusal);
    expect(() => addReview(s, req({ reviewer: 'bob' }), T0 + 1000)).toThrow(refusal);
    expect(s.reviews).toHaveLength(1);
    expect(reviewOf(s, 'run-1', 'c1')!.reviewer).toBe('ann');
    // The same call id in another run is another call.
    expect(checkReview(s, req({ workflowId: 'run-2' }))).toBeUndefined();
  });

  test('the list is oldest first, narrowed to one run on request, and a copy', () => {
    const s = emptyReviews();
    addReview(s, req({ callId: 'a' }), T0);
    addReview(s, req({ workflowId: 'run-2', callId: 'b' }), T0 + 1);
    addReview(s, req({ callId: 'c' }), T0 + 2);
    expect(listReviews(s).map((r) => r.callId)).toEqual(['a', 'b', 'c']);
    expect(listReviews(s, 'run-1').map((r) => r.callId)).toEqual(['a', 'c']);
    listReviews(s)[0]!.verdict = 'flagged';
    expect(s.reviews[0]!.verdict).toBe('reviewed');
  });

  test(`the newest ${MAX_KEPT_REVIEWS} are kept, and carried across continue-as-new`, () => {
    const s = emptyReviews();
    for (let i = 0; i < MAX_KEPT_REVIEWS + 5; i++) addReview(s, req({ callId: `c${i}` }), T0 + i);
    expect(s.reviews).toHaveLength(MAX_KEPT_REVIEWS);
    expect(s.reviews[0]!.callId).toBe('c5');
    const carried = carryReviews(s);
    expect(carried.reviews).toEqual(s.reviews);
    expect(carried.reviews).not.toBe(s.reviews);
  });
});

describe('a review request', () => {
  const problem = (raw: unknown) => {
    const parsed = reviewRequestSchema.safeParse(raw);
    return parsed.success ? undefined : describeZodError(parsed.error);
  };
  test('names the call, a verdict and a reviewer; a flag needs a note; nothing else is accepted', () => {
    expect(problem(req())).toBeUndefined();
    expect(problem(req({ verdict: 'flagged', note: 'why' }))).toBeUndefined();
    expect(problem(req({ verdict: 'flagged' }))).toBe('note: a flag needs a note saying why');
    expect(problem(req({ verdict: 'flagged', note: '   ' }))).toBe('note: a flag needs a note saying why');
    expect(problem({ ...req(), verdict: 'approved' })).toBe('verdict: must be "reviewed" or "flagged"');
    expect(problem(req({ reviewer: '' }))).toBe('reviewer: must not be empty');
    expect(problem(req({ note: 'x'.repeat(501) }))).toBe('note: at most 500 characters');
    expect(problem({ ...req(), extra: 1 })).toMatch(/^Unrecognized key/);
  });
});

describe('the review queue', () => {
  const run = { workflowId: 'run-1', agent: 'shop' };
  test("audit-only calls are unreviewed until reviewed; plain audited calls and other runs' reviews do not count", () => {
    const audit = [
      audited('c1'),
      audited('c2'),
      audited('c3', { review: undefined }),
      { ...audited('c4'), decision: 'approved' as const, review: undefined },
    ];
    expect(audit.map(isReviewable)).toEqual([true, true, false, false]);
    const s = emptyReviews();
    addReview(s, req({ callId: 'c2', verdict: 'flagged', note: 'too large' }), T0);
    addReview(s, req({ workflowId: 'run-2', callId: 'c1' }), T0);
    const records = reviewRecords(run, audit, s.reviews);
    expect(records).toEqual([
      {
        workflowId: 'run-1',
        callId: 'c1',
        agent: 'shop',
        toolName: 'refund',
        status: 'unreviewed',
        approvers: [],
        requestedAt: '2026-11-22T09:00:00.000Z',
        decidedAt: '2026-11-22T09:00:00.000Z',
      },
      {
        workflowId: 'run-1',
        callId: 'c2',
        agent: 'shop',
        toolName: 'refund',
        status: 'flagged',
        approvers: ['ann'],
        requestedAt: '2026-11-22T09:00:00.000Z',
        decidedAt: '2026-11-22T09:00:00.000Z',
        reviewedAt: '2026-11-22T10:00:00.000Z',
        note: 'too large',
      },
    ]);
    expect(filterRecords(records, { status: 'unreviewed' }).map((r) => r.callId)).toEqual(['c1']);
    expect(filterRecords(records, { status: 'flagged', approver: 'ann' }).map((r) => r.callId)).toEqual(['c2']);
    // The decision records of the same audit leave audited calls out, as before.
    expect(approvalRecords({ ...run, running: false }, audit, []).map((r) => r.callId)).toEqual(['c4']);
    expect(APPROVAL_STATUSES).toEqual(
      expect.arrayContaining(['unreviewed', 'reviewed', 'flagged', 'pending', 'approved']),
    );
  });
});
