// A ledger write's fold (storage/ledger/ledgerFold.ts), without a store: the call rows a write rewrites, the
// placeholder an early review leaves and its call's row absorbs, pending and closed, and the new items chained after
// the chain's end. What the store had is left as it was.
import type { LedgerEntry, LedgerReview, LedgerWrite } from '../../contract/ledgerRecords';
import { callRecord } from '../../core/approvals/callFold';
import { chainHash } from '../../storage/ledger/ledgerChain';
import { type CallRow, type LoadedWrite, foldWrite, itemsOf } from '../../storage/ledger/ledgerFold';

const run = (more: Partial<LedgerWrite> = {}): LedgerWrite => ({
  workflowId: 'wf-1',
  chainId: 'first',
  taskQueue: 'q',
  agent: 'support',
  ...more,
});
/** An approved refund, decided ten seconds after it was asked. */
const approved = {
  toolName: 'refund',
  decision: 'approved',
  approver: 'Ann',
  via: 'signal',
  requestedAt: '2026-01-01T00:00:00.000Z',
  decidedAt: '2026-01-01T00:00:10.000Z',
} satisfies Omit<LedgerEntry, 'seq' | 'callId'>;
const entry = (seq: number, callId: string, e: Partial<LedgerEntry> = {}): LedgerEntry => ({
  ...approved,
  seq,
  callId,
  ...e,
});
const review = (seq: number, workflowId: string, callId: string): LedgerReview => ({
  seq,
  workflowId,
  callId,
  toolName: 'refund',
  verdict: 'reviewed',
  reviewer: 'Rita',
  reviewedAt: '2026-01-02T00:00:00.000Z',
});
const empty = { pos: 0, seq: null, hash: '' };
const loadedOf = (w: LedgerWrite, more: Partial<LoadedWrite> = {}): LoadedWrite => ({
  fresh: itemsOf(w),
  calls: [],
  waiting: [],
  end: empty,
  ...more,
});
const statusOf = (row: CallRow) => callRecord(row.trail, { workflowId: row.workflowId, agent: row.runAgent })?.status;

test('a repeated seq counts once, the first winning', () => {
  const w = run({ entries: [entry(1, 'a'), entry(2, 'b'), entry(2, 'c')], reviews: [review(1, 'wf-9', 'x')] });
  expect(itemsOf(w).map((i) => [i.kind, i.seq, i.record.callId])).toEqual([
    ['entry', 1, 'a'],
    ['entry', 2, 'b'],
  ]);
});

test('new entries make new call rows and are chained after the chain end, each hashing the one before', () => {
  const w = run({ entries: [entry(3, 'a'), entry(5, 'b', { decision: 'rejected' })] });
  const end = { pos: 7, seq: 2, hash: 'h2' };
  const folded = foldWrite(w, loadedOf(w, { end }));
  expect(folded.calls.map((c) => [c.chainId, c.callId, c.taskQueue, c.runAgent, statusOf(c)])).toEqual([
    ['first', 'a', 'q', 'support', 'approved'],
    ['first', 'b', 'q', 'support', 'rejected'],
  ]);
  expect(folded.placeholders).toEqual([]);
  const [first, second] = folded.entries;
  expect(first!.body).toEqual({
    workflowId: 'wf-1',
    chainId: 'first',
    seq: 3,
    pos: 8,
    prevSeq: 2,
    kind: 'entry',
    record: entry(3, 'a'),
  });
  expect(first!.hash).toBe(chainHash('h2', first!.body));
  expect(second!.body).toMatchObject({ seq: 5, pos: 9, prevSeq: 3 });
  expect(second!.hash).toBe(chainHash(first!.hash, second!.body));
  expect(folded.end).toEqual({ pos: 9, seq: 5, hash: second!.hash });
});

test('nothing fresh: no entries, and the chain end stays', () => {
  const w = run({ pending: [] });
  const folded = foldWrite(w, loadedOf(w, { fresh: [] }));
  expect(folded).toEqual({ calls: [], placeholders: [], entries: [], end: empty });
});

test('a review before its call: a placeholder row, which the call row absorbs when its entries arrive', () => {
  const reviews = run({ workflowId: 'reviews', chainId: 'r1', agent: '', reviews: [review(1, 'wf-1', 'a')] });
  const early = foldWrite(reviews, loadedOf(reviews));
  expect(early.calls.map((c) => [c.workflowId, c.chainId, c.callId, c.runAgent, c.trail.review?.reviewer])).toEqual([
    ['wf-1', '', 'a', '-', 'Rita'],
  ]);

  const w = run({ entries: [entry(1, 'a', { decision: 'audited', review: true })] });
  const folded = foldWrite(w, loadedOf(w, { calls: early.calls }));
  expect(folded.placeholders).toEqual(early.calls);
  expect(folded.calls.map((c) => [c.chainId, c.callId, statusOf(c)])).toEqual([['first', 'a', 'reviewed']]);
  expect(folded.calls[0]!.trail.review?.reviewer).toBe('Rita');
});

test('a review of a stored call folds into its row', () => {
  const stored: CallRow = {
    workflowId: 'wf-1',
    chainId: 'first',
    callId: 'a',
    taskQueue: 'q',
    runAgent: 'support',
    trail: { callId: 'a', counted: [] },
  };
  const reviews = run({ workflowId: 'reviews', chainId: 'r1', agent: '', reviews: [review(4, 'wf-1', 'a')] });
  const folded = foldWrite(reviews, loadedOf(reviews, { calls: [stored] }));
  expect(folded.calls.map((c) => [c.workflowId, c.chainId, c.trail.review?.verdict])).toEqual([
    ['wf-1', 'first', 'reviewed'],
  ]);
  expect(stored.trail.review).toBeUndefined(); // what was loaded is left as it was
});

test('pending replaces what the chain showed; closed cuts off what still waits', () => {
  const p = (callId: string) => ({ callId, toolName: 'refund', requestedAt: '2026-01-01T00:00:00.000Z' });
  const first = foldWrite(run({ pending: [p('a'), p('b')] }), loadedOf(run()));
  expect(first.calls.map((c) => [c.callId, statusOf(c)])).toEqual([
    ['a', 'pending'],
    ['b', 'pending'],
  ]);

  const w = run({ pending: [p('b')] });
  const second = foldWrite(w, loadedOf(w, { calls: first.calls, waiting: ['a', 'b'] }));
  expect(second.calls.map((c) => [c.callId, statusOf(c)])).toEqual([
    ['a', undefined],
    ['b', 'pending'],
  ]);

  const closed = run({ closed: true });
  const third = foldWrite(closed, loadedOf(closed, { calls: second.calls, waiting: ['b'] }));
  expect(third.calls.map((c) => [c.callId, statusOf(c)])).toEqual([
    ['a', undefined],
    ['b', 'cancelled'],
  ]);
  expect(second.calls[1]!.trail.cutOff).toBeUndefined();
});
