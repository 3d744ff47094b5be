// One behaviour suite for both approvals-ledger stores: a real SQLite file (node:sqlite) and a real PostgreSQL
// (Debian's server, a throwaway cluster from test/support/postgres.ts). Each test writes its own runs (its own task
// queue and years), so the tests share a store without seeing each other's records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { LedgerEntry, LedgerWrite } from '../../contract/ledgerRecords';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { ledgerTarget, openLedger } from '../../storage/ledger/ledgerUrl';
import { type TestPostgres, startPostgres } from '../support/postgres';

const at = (year: number, s: number) => new Date(Date.UTC(year, 0, 1) + s * 1000).toISOString();
const entry = (seq: number, callId: string, e: Partial<LedgerEntry> = {}): LedgerEntry => ({
  seq,
  callId,
  toolName: 'refund',
  decision: 'approved',
  approver: 'Ann',
  via: 'signal',
  requestedAt: at(2026, 0),
  decidedAt: at(2026, 10),
  ...e,
});
const run = (workflowId: string, taskQueue: string, more: Partial<LedgerWrite> = {}): LedgerWrite => ({
  workflowId,
  chainId: `${workflowId}-first`,
  taskQueue,
  agent: 'support',
  ...more,
});

/** Everything matching, following `next`. */
async function all(store: LedgerStore, q: Parameters<LedgerStore['approvals']>[0]) {
  const out = [];
  let after: string | undefined;
  do {
    const page = await store.approvals({ ...q, ...(after ? { after } : {}) });
    out.push(...page.records);
    after = page.next;
  } while (after);
  return out;
}

type Kind = 'sqlite' | 'postgres';

describe.each<Kind>(['sqlite', 'postgres'])('the %s ledger', (kind) => {
  let store: LedgerStore;
  let url: string;
  let folder: string | undefined;
  let server: TestPostgres | undefined;
  /** Changes the store's rows behind its back (the tamperer of the verify tests). */
  let tamper: (sql: string) => Promise<void>;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      folder = mkdtempSync(path.join(tmpdir(), 'countersign-ledger-'));
      url = path.join(folder, 'ledger.db');
      tamper = async (sql) => {
        const db = new DatabaseSync(url);
        db.exec(sql);
        db.close();
      };
    } else {
      server = await startPostgres();
      url = server.url;
      tamper = async (sql) => {
        const client = new pg.Client(url);
        await client.connect();
        await client.query(sql);
        await client.end();
      };
    }
    store = (await openLedger(url))!;
  });
  afterAll(async () => {
    await store?.close();
    await server?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

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

  test('filters: status, agent, tool, approver, task queue, since and until (exclusive)', async () => {
    const q = 'q-filter';
    await store.write(
      run('filter-1', q, {
        entries: [
          entry(1, 'a', { decidedAt: at(2027, 10), toolName: 'refund' }),
          entry(2, 'b', { decidedAt: at(2027, 20), toolName: 'lookup', decision: 'rejected', approver: 'Bob' }),
          entry(3, 'c', { decidedAt: at(2027, 30), toolName: 'refund', agentName: 'billing' }),
        ],
      }),
    );
    const ids = async (f: object) => (await all(store, { taskQueue: q, ...f })).map((r) => r.callId);
    expect(await ids({})).toEqual(['a', 'b', 'c']);
    expect(await ids({ status: 'rejected' })).toEqual(['b']);
    expect(await ids({ agent: 'billing' })).toEqual(['c']);
    expect(await ids({ tool: 'refund' })).toEqual(['a', 'c']);
    expect(await ids({ approver: 'bob' })).toEqual(['b']);
    expect(await ids({ sinceIso: at(2027, 20) })).toEqual(['b', 'c']);
    expect(await ids({ sinceIso: at(2027, 11), untilIso: at(2027, 30) })).toEqual(['b']);
    expect(await ids({ taskQueue: 'q-none' })).toEqual([]);
    await expect(store.approvals({ sinceIso: 'yesterday' })).rejects.toThrow(/not an ISO-8601 time/);
  });

  test('pages: keyset order, stable under ties, nothing repeated or skipped when records arrive between pages', async () => {
    const q = 'q-pages';
    const same = at(2028, 5);
    const entries = Array.from({ length: 25 }, (_, i) =>
      entry(i + 1, `call-${String(i).padStart(2, '0')}`, { decidedAt: same }),
    );
    await store.write(run('pages-b', q, { entries }));
    const seen: string[] = [];
    let page = await store.approvals({ taskQueue: q, limit: 10 });
    seen.push(...page.records.map((r) => `${r.workflowId}/${r.callId}`));
    // an earlier record and a tie that sorts before the cursor arrive: they are not on later pages
    await store.write(
      run('pages-a', q, { entries: [entry(1, 'zz', { decidedAt: same }), entry(2, 'y', { decidedAt: at(2028, 1) })] }),
    );
    while (page.next) {
      page = await store.approvals({ taskQueue: q, limit: 10, after: page.next });
      seen.push(...page.records.map((r) => `${r.workflowId}/${r.callId}`));
    }
    expect(seen).toEqual(entries.map((e) => `pages-b/${e.callId}`));
    const everyone = await all(store, { taskQueue: q });
    expect(everyone.length).toBe(27);
    // pages of one person's calls (walked from the approvers table) keep the same order
    expect(await all(store, { taskQueue: q, approver: 'ANN', limit: 4 })).toEqual(everyone);
    await expect(store.approvals({ after: 'not-a-cursor' })).rejects.toThrow(/not a cursor/);
  });

  test('the report: counts by outcome, approval rate, p50/p95 (percentile_cont), by tool and by approver', async () => {
    const q = 'q-report';
    const waits = [5, 1, 9, 3, 20, 7, 2]; // seconds from request to decision
    const decisions = ['approved', 'approved', 'rejected', 'auto_approved', 'expired', 'granted', 'approved'] as const;
    const tools = ['refund', 'refund', 'refund', 'lookup', 'refund', 'lookup', 'lookup'];
    const approvers = ['Ann', 'ann', 'Bob', undefined, undefined, undefined, 'Bob'];
    await store.write(
      run('report-1', q, {
        entries: waits.map((w, i) =>
          entry(i + 1, `c${i}`, {
            decision: decisions[i],
            toolName: tools[i],
            approver: approvers[i],
            requestedAt: at(2029, 100 * i),
            decidedAt: at(2029, 100 * i + w),
          }),
        ),
        pending: [{ callId: 'p', toolName: 'refund', requestedAt: at(2029, 5000) }],
      }),
    );
    // percentile_cont by hand: the value at (n-1)p in the sorted waits, linear between neighbours
    const cont = (xs: number[], p: number) => {
      const s = [...xs].sort((a, b) => a - b);
      const pos = (s.length - 1) * p;
      const lo = Math.floor(pos);
      return lo + 1 < s.length ? s[lo]! + (s[lo + 1]! - s[lo]!) * (pos - lo) : s[lo]!;
    };
    const ms = (xs: number[]) => ({ p50: cont(xs, 0.5) * 1000, p95: cont(xs, 0.95) * 1000 });
    const report = await store.report({ taskQueue: q, sinceIso: at(2029, 0), untilIso: at(2030, 0) });
    expect(report).toMatchObject({ sinceIso: at(2029, 0), untilIso: at(2030, 0), total: 8 });
    expect(report.byOutcome).toEqual({
      approved: 3,
      auto_approved: 1,
      expired: 1,
      granted: 1,
      pending: 1,
      rejected: 1,
    });
    expect(report.approvalRate).toBeCloseTo(5 / 7, 10);
    expect(report.timeToDecisionMs.p50).toBeCloseTo(ms(waits).p50, 6);
    expect(report.timeToDecisionMs.p95).toBeCloseTo(ms(waits).p95, 6);
    expect(report.byTool.lookup).toEqual({
      total: 3,
      byOutcome: { approved: 1, auto_approved: 1, granted: 1 },
      approvalRate: 1,
      timeToDecisionMs: ms([3, 7, 2]),
    });
    expect(report.byTool.refund!.total).toBe(5);
    expect(report.byTool.refund!.approvalRate).toBeCloseTo(2 / 4, 10);
    expect(report.byTool.refund!.timeToDecisionMs.p95).toBeCloseTo(ms([5, 1, 9, 20]).p95, 6);
    // Ann and ann are one person (shown as first spelled, by code point); Bob decided two
    expect(Object.keys(report.byApprover).sort()).toEqual(['Ann', 'Bob']);
    expect(report.byApprover.Ann).toMatchObject({ total: 2, approvalRate: 1, timeToDecisionMs: ms([5, 1]) });
    expect(report.byApprover.Bob).toMatchObject({
      total: 2,
      byOutcome: { approved: 1, rejected: 1 },
      approvalRate: 0.5,
    });
    const empty = await store.report({ taskQueue: 'q-none' });
    expect(empty).toMatchObject({ total: 0, approvalRate: null, timeToDecisionMs: { p50: null, p95: null } });
  });

  test('verify names a changed record and a removed one', async () => {
    const w = run('verify-1', 'q-verify', {
      entries: [1, 2, 3, 4, 5].map((s) => entry(s, `c${s}`, { decidedAt: at(2020, s), requestedAt: at(2020, 0) })),
    });
    await store.write(w);
    const range = { sinceIso: at(2020, 0), untilIso: at(2021, 0) };
    expect(await store.verify(range)).toEqual({ chains: 1, records: 5, problems: [] });
    await tamper(`UPDATE ledger_entries SET body = replace(body, '"approver":"Ann"', '"approver":"Mallory"')
      WHERE workflow_id = 'verify-1' AND seq = 2`);
    await tamper(`DELETE FROM ledger_entries WHERE workflow_id = 'verify-1' AND seq = 4`);
    const result = await store.verify(range);
    expect(result.problems.map((p) => [p.workflowId, p.chainId, p.seq, p.problem])).toEqual([
      ['verify-1', 'verify-1-first', 2, 'changed'],
      ['verify-1', 'verify-1-first', 4, 'removed'],
    ]);
    await tamper(`DELETE FROM ledger_entries WHERE workflow_id = 'verify-1' AND seq = 5`);
    expect((await store.verify(range)).problems.map((p) => [p.seq, p.problem])).toContainEqual([5, 'removed']);
  });

  test('prune deletes whole old calls only, and what stays still verifies', async () => {
    const q = 'q-prune';
    const old = (s: number, callId: string) =>
      entry(s, callId, { requestedAt: at(2010, s), decidedAt: at(2010, s + 1) });
    await store.write(
      run('prune-1', q, {
        entries: [
          old(1, 'a'),
          old(2, 'b'),
          entry(3, 'c', { decision: 'approval_counted', requestedAt: at(2010, 3), decidedAt: at(2010, 4) }),
          old(5, 'd'),
        ],
      }),
    );
    // c is decided only later: it stays, and with it everything after it in the chain
    await store.write(
      run('prune-1', q, { entries: [entry(6, 'c', { requestedAt: at(2010, 3), decidedAt: at(2031, 1) })] }),
    );
    await store.write(run('prune-2', q, { entries: [old(1, 'x'), old(2, 'y')] }));
    expect(await store.prune(at(2011, 0))).toBe(4);
    expect((await store.chain({ workflowId: 'prune-1', chainId: 'prune-1-first' })).map((r) => r.seq)).toEqual([
      3, 5, 6,
    ]);
    expect((await all(store, { taskQueue: q })).map((r) => r.callId)).toEqual(['d', 'c']);
    expect(await store.verify({ sinceIso: at(2010, 0), untilIso: at(2011, 0) })).toEqual({
      chains: 1,
      records: 3,
      problems: [],
    });
    // the pruned chain goes on
    await store.write(run('prune-1', q, { entries: [entry(7, 'e', { decidedAt: at(2031, 2) })] }));
    expect((await store.verify({ sinceIso: at(2031, 0), untilIso: at(2032, 0) })).problems).toEqual([]);
    expect(await store.prune(at(2011, 0))).toBe(0);
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

test('ledger URLs: a path, postgres:// or postgresql://, off; anything else in one line, without the password', async () => {
  expect(ledgerTarget('.temporal/ledger.db')).toEqual({ kind: 'sqlite', file: '.temporal/ledger.db' });
  expect(ledgerTarget('postgresql://u:pw@db:5432/ledger')).toEqual({
    kind: 'postgres',
    url: 'postgresql://u:pw@db:5432/ledger',
  });
  expect(ledgerTarget('OFF')).toEqual({ kind: 'off' });
  expect(await openLedger('off')).toBeUndefined();
  expect(() => ledgerTarget('mysql://u:secret@db/x')).toThrow(/^COUNTERSIGN_LEDGER_URL mysql:\/\/u:\*\*\*@db\/x: only/);
  await expect(openLedger('postgres://u:secret@127.0.0.1:1/x')).rejects.toThrow(
    /^cannot open the approvals ledger postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x: /,
  );
  await expect(openLedger('postgres://u:secret@127.0.0.1:1/x')).rejects.not.toThrow(/secret/);
});
