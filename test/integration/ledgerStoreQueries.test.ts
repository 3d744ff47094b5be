// One behaviour suite for both approvals-ledger stores (a real SQLite file and a real PostgreSQL, from
// test/support/ledgerStores.ts), on what is asked of the records: filters, keyset pages, the report, verify and prune;
// and the ledger URLs. Each test writes its own runs (its own task queue and years), so the tests share a store without
// seeing each other's records. What a write keeps is in ledgerStoreRecords.test.ts.
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { ledgerTarget, openLedger } from '../../storage/ledger/ledgerUrl';
import { type Kind, type TestLedger, all, at, editRecords, entry, openTestLedger, run } from '../support/ledgerStores';

describe.each<Kind>(['sqlite', 'postgres'])('the %s ledger', (kind) => {
  let store: LedgerStore;
  let tamper: TestLedger['tamper'];
  let close: () => Promise<void>;
  beforeAll(async () => ({ store, tamper, close } = await openTestLedger(kind)));
  afterAll(async () => close?.());

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
    // newest first: the same order reversed (ties by workflow id, then chain id, then call id, whichever run came first)
    expect(await all(store, { taskQueue: q, newestFirst: true, limit: 4 })).toEqual([...everyone].reverse());
    expect(await all(store, { taskQueue: q, approver: 'ann', newestFirst: true, limit: 4 })).toEqual(
      [...everyone].reverse(),
    );
    expect(everyone.slice(0, 3).map((r) => `${r.workflowId}/${r.callId}`)).toEqual([
      'pages-a/y',
      'pages-a/zz',
      'pages-b/call-00',
    ]);
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

  test('verify names a changed record and a removed one (and the call row the removed one leaves behind)', async () => {
    const w = run('verify-1', 'q-verify', {
      entries: [1, 2, 3, 4, 5].map((s) => entry(s, `c${s}`, { decidedAt: at(2020, s), requestedAt: at(2020, 0) })),
    });
    await store.write(w);
    const range = { sinceIso: at(2020, 0), untilIso: at(2021, 0) };
    expect(await store.verify(range)).toEqual({ chains: 1, records: 5, problems: [] });
    await editRecords(tamper, kind, `workflow_id = 'verify-1' AND seq = 2`, (json) =>
      json.replace('"approver":"Ann"', '"approver":"Mallory"'),
    );
    await tamper(
      `DELETE FROM ledger_entries WHERE chain IN (SELECT id FROM ledger_chains WHERE workflow_id = 'verify-1') AND seq = 4`,
    );
    const result = await store.verify(range);
    expect(result.problems.map((p) => [p.workflowId, p.chainId, p.seq, p.problem, p.callId])).toEqual([
      ['verify-1', 'verify-1-first', 2, 'changed', undefined],
      ['verify-1', 'verify-1-first', 4, 'removed', undefined],
      ['verify-1', 'verify-1-first', 0, 'changed', 'c4'],
    ]);
    expect(result.problems[2]!.detail).toBe('the report tables show it approved, but its chain has no record of it');
    await tamper(
      `DELETE FROM ledger_entries WHERE chain IN (SELECT id FROM ledger_chains WHERE workflow_id = 'verify-1') AND seq = 5`,
    );
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
