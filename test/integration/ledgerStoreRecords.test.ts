// One behaviour suite for both approvals-ledger stores (a real SQLite file and a real PostgreSQL, from
// test/support/ledgerStores.ts), on what a write keeps and how records read back: idempotent writes, a chain per run,
// pending until decided, quorums, audit-only calls and their reviews, and a reopened ledger. Each test writes its own
// runs (its own task queue), so the tests share a store without seeing each other's records. Filters, pages, the
// report, verify and prune are in ledgerStoreQueries.test.ts.
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { type Kind, all, at, entry, openTestLedger, run } from '../support/ledgerStores';

describe.each<Kind>(['sqlite', 'postgres'])('the %s ledger', (kind) => {
  let store: LedgerStore;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => ({ store, url, close } = await openTestLedger(kind)));
  afterAll(async () => close?.());

  test('a write is idempotent: a retried or repeated write keeps each entry once', async () => {
    const w = run('idem-1', 'q-idem', { entries: [entry(1, 'a'), entry(2, 'b'), entry(2, 'b')] });
    const ledgerId = store.id;
    expect(ledgerId).toMatch(/^[0-9a-f]{16}$/);
    expect(await store.write(w)).toEqual({ written: 2, skipped: 0, ledgerId });
    expect(await store.write(w)).toEqual({ written: 0, skipped: 2, ledgerId });
    expect(await store.write({ ...w, entries: [entry(2, 'b'), entry(3, 'c')] })).toEqual({
      written: 1,
      skipped: 1,
      ledgerId,
    });
    const records = await all(store, { taskQueue: 'q-idem' });
    expect(records.map((r) => r.callId)).toEqual(['a', 'b', 'c']);
    expect((await store.chain({ workflowId: 'idem-1', chainId: 'idem-1-first' })).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  test('writeMany keeps several runs in one transaction as write keeps each: a retried batch, or one beside single writes, keeps each entry once', async () => {
    const ledgerId = store.id;
    const a = run('many-1', 'q-many', { entries: [entry(1, 'a'), entry(2, 'b')] });
    const b = run('many-2', 'q-many', { entries: [entry(1, 'a', { decision: 'rejected', approver: 'Bob' })] });
    expect(await store.writeMany([a, b, a])).toEqual([
      { written: 2, skipped: 0, ledgerId },
      { written: 1, skipped: 0, ledgerId },
      { written: 0, skipped: 2, ledgerId },
    ]);
    await store.write({ ...a, entries: [entry(3, 'c')] });
    expect(await store.writeMany([{ ...a, entries: [...a.entries!, entry(3, 'c'), entry(4, 'd')] }, b])).toEqual([
      { written: 1, skipped: 3, ledgerId },
      { written: 0, skipped: 1, ledgerId },
    ]);
    expect(await store.writeMany([])).toEqual([]);
    const records = await all(store, { taskQueue: 'q-many' });
    expect(records.map((r) => [r.workflowId, r.callId, r.status])).toEqual([
      ['many-1', 'a', 'approved'],
      ['many-1', 'b', 'approved'],
      ['many-1', 'c', 'approved'],
      ['many-1', 'd', 'approved'],
      ['many-2', 'a', 'rejected'],
    ]);
    expect((await store.chain({ workflowId: 'many-1', chainId: 'many-1-first' })).map((r) => r.seq)).toEqual([
      1, 2, 3, 4,
    ]);
    expect((await store.verify({})).problems).toEqual([]);
  });

  test('each run (and each reuse of its workflow id) has a chain of its own, entries without arguments', async () => {
    await store.write(run('chain-1', 'q-chain', { entries: [entry(1, 'a', { argumentsDigest: 'abc' })] }));
    await store.write(run('chain-1', 'q-chain', { chainId: 'chain-1-second', entries: [entry(1, 'a')] }));
    const first = await store.chain({ workflowId: 'chain-1', chainId: 'chain-1-first' });
    expect(first).toEqual([
      { seq: 1, hash: expect.stringMatching(/^[\w-]{43}$/), entry: entry(1, 'a', { argumentsDigest: 'abc' }) },
    ]);
    const second = await store.chain({ workflowId: 'chain-1', chainId: 'chain-1-second' });
    expect(second[0]!.hash).not.toBe(first[0]!.hash);
    expect((await all(store, { workflowId: 'chain-1' })).length).toBe(2);
  });

  test('pending until decided; a call no longer waiting without a decision shows nothing; closed cuts off the rest', async () => {
    const q = 'q-pending';
    const p = (callId: string) => ({ callId, toolName: 'refund', requestedAt: at(2026, 0) });
    await store.write(run('pend-1', q, { pending: [p('a'), p('b'), p('c')] }));
    expect((await all(store, { taskQueue: q, status: 'pending' })).map((r) => r.callId)).toEqual(['a', 'b', 'c']);
    await store.write(run('pend-1', q, { entries: [entry(1, 'a', { decision: 'rejected' })], pending: [p('b')] }));
    const records = await all(store, { taskQueue: q });
    expect(records.map((r) => [r.callId, r.status])).toEqual([
      ['b', 'pending'],
      ['a', 'rejected'],
    ]);
    await store.write(run('pend-1', q, { closed: true }));
    expect((await all(store, { taskQueue: q })).map((r) => [r.callId, r.status, r.decidedAt])).toEqual([
      ['b', 'cancelled', undefined],
      ['a', 'rejected', at(2026, 10)],
    ]);
  });

  test('a quorum names every approver (found by any spelling); a stale decision starts over', async () => {
    const q = 'q-quorum';
    await store.write(
      run('quorum-1', q, {
        entries: [
          entry(1, 'a', { decision: 'approval_counted', approver: 'Ann', verified: true, keyId: 'k1' }),
          entry(2, 'a', { decision: 'approved', approver: 'Bob', verified: true }),
          entry(3, 'b', { decision: 'approved', approver: 'Cy' }),
          entry(4, 'b', { decision: 'stale', approver: undefined }),
        ],
        pending: [{ callId: 'b', toolName: 'refund', requestedAt: at(2026, 0) }],
      }),
    );
    const [a] = await all(store, { taskQueue: q, approver: ' ANN ' });
    expect(a).toEqual({
      workflowId: 'quorum-1',
      callId: 'a',
      agent: 'support',
      toolName: 'refund',
      status: 'approved',
      approvers: ['Ann', 'Bob'],
      requestedAt: at(2026, 0),
      decidedAt: at(2026, 10),
      verified: true,
    });
    expect(await all(store, { taskQueue: q, approver: 'cy' })).toEqual([]);
    expect((await all(store, { taskQueue: q, status: 'pending' })).map((r) => r.callId)).toEqual(['b']);
  });

  test('audit-only calls: unreviewed, then reviewed or flagged by the reviews workflow’s writes, in either order', async () => {
    const q = 'q-review';
    const audited = (seq: number, callId: string) =>
      entry(seq, callId, { decision: 'audited', review: true, via: 'run', approver: undefined });
    const review = (seq: number, workflowId: string, callId: string, verdict: 'reviewed' | 'flagged') => ({
      seq,
      workflowId,
      callId,
      verdict,
      reviewer: 'Rita',
      reviewedAt: at(2026, 100),
      ...(verdict === 'flagged' ? { note: 'too large' } : {}),
    });
    await store.write(run('rev-1', q, { entries: [audited(1, 'a'), audited(2, 'b')] }));
    expect((await all(store, { taskQueue: q })).map((r) => r.status)).toEqual(['unreviewed', 'unreviewed']);
    const reviews = { workflowId: `reviews-${kind}`, chainId: 'reviews-first', taskQueue: q, agent: '-' };
    // rev-2's review arrives before rev-2's own entries (a backfill can order them so)
    await store.write({
      ...reviews,
      reviews: [review(1, 'rev-1', 'a', 'flagged'), review(2, 'rev-2', 'x', 'reviewed')],
    });
    await store.write(run('rev-2', q, { entries: [audited(1, 'x')] }));
    const records = await all(store, { taskQueue: q });
    expect(records.map((r) => [r.workflowId, r.callId, r.status, r.approvers, r.note])).toEqual([
      ['rev-1', 'a', 'flagged', ['Rita'], 'too large'],
      ['rev-1', 'b', 'unreviewed', [], undefined],
      ['rev-2', 'x', 'reviewed', ['Rita'], undefined],
    ]);
    expect(records[0]!.reviewedAt).toBe(at(2026, 100));
    expect((await all(store, { status: 'flagged', approver: 'rita', taskQueue: q })).length).toBe(1);
    expect((await store.chain(reviews)).length).toBe(2);
  });

  test('a reopened ledger runs no migration and keeps its records', async () => {
    const again = (await openLedger(url)) as LedgerStore & { migrated: number[] };
    try {
      expect(again.migrated).toEqual([]);
      expect(again.id).toBe(store.id); // the id lives in the ledger
      expect((await all(again, { taskQueue: 'q-idem' })).length).toBe(3);
      await again.ping();
      expect(again.describe).toMatch(kind === 'sqlite' ? /^sqlite / : /^postgres postgres:\/\/postgres@127\.0\.0\.1:/);
    } finally {
      await again.close();
    }
  });
});
