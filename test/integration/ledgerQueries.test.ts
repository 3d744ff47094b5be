// Reads of the approvals ledger on its own, without Temporal: the newest decided records of a long ledger (the inbox's
// history) without reading it all, and verify's comparison of what a run handed the ledger with the chain it keeps.
// Approvals across runs and their report are in approvalsAcross.test.ts.
import { randomUUID } from 'node:crypto';
import { newestDecided } from '../../client/approvals/approvalsReport';
import { compareChain } from '../../client/approvals/ledgerVerify';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { newId } from '../support/fixtures';
import { testLedgerUrl } from '../support/ledgerFile';

jest.setTimeout(120_000);

const taskQueue = `test-${randomUUID()}`;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

let ledger: LedgerStore;
beforeAll(async () => {
  ledger = (await openLedger(testLedgerUrl()))!;
});
afterAll(async () => ledger?.close());
test("the newest decided records of a long ledger (the inbox's history) without reading it all", async () => {
  const queue = `test-${randomUUID()}`;
  const write = (i: number, decidedAt: string) =>
    ledger.write({
      workflowId: `newest-${queue}-${i}`,
      chainId: 'c',
      taskQueue: queue,
      agent: 'ledger-clerk',
      entries: [
        {
          seq: 1,
          callId: 'k',
          toolName: 'send_email',
          decision: 'approved',
          approver: 'ann',
          via: 'update',
          decidedAt,
        },
      ],
    });
  // 1,500 calls, one every 30 minutes back from now, then a burst of 600 within one second a day ago.
  const now = Date.now();
  for (let i = 0; i < 1500; i++) await write(i, new Date(now - (i + 1) * 1_800_000).toISOString());
  const newest = await newestDecided({ taskQueue: queue, ledger }, 100);
  expect(newest.total).toBe(1500);
  expect(newest.records.map((r) => r.workflowId)).toEqual(
    Array.from({ length: 100 }, (_, i) => `newest-${queue}-${i}`),
  );
  for (let i = 0; i < 600; i++) await write(2000 + i, new Date(now - 86_400_000 + (i % 1000)).toISOString());
  const past = await newestDecided({ taskQueue: queue, ledger, until: '1d' }, 100);
  expect(past.total).toBe(1500 - 47 + 600); // the 47 half-hours of the last day are after `until`
  expect(past.records).toHaveLength(100);
  expect(past.records.every((r) => /-2\d{3}$/.test(r.workflowId))).toBe(true); // the burst's newest
  expect(await newestDecided({ taskQueue: queue, ledger, since: '3h' }, 100)).toMatchObject({ total: 5 });
});

test("verify's comparison with history: what a run handed the ledger against the chain it keeps", async () => {
  const key = { workflowId: newId('compared'), chainId: randomUUID(), taskQueue, agent: 'ledger-clerk' };
  const entry = (seq: number, approver: string) =>
    ({
      seq,
      callId: `k${seq}`,
      toolName: 'send_email',
      decision: 'approved',
      approver,
      via: 'update',
      decidedAt: at(seq),
    }) as const;
  const handed = { ...key, entries: [entry(1, 'ann'), entry(2, 'bob')] };
  await ledger.write(handed);
  expect(await compareChain(ledger, [handed])).toEqual([]);
  const problems = await compareChain(ledger, [
    { ...key, entries: [entry(1, 'ann'), entry(2, 'eve'), entry(3, 'cy')] },
  ]);
  expect(problems.map((p) => [p.seq, p.problem, p.detail])).toEqual([
    [2, 'differs from history', "seq 2 differs from the run's history in approver"],
    [3, 'differs from history', "seq 3 is in the run's history but not in the ledger"],
  ]);
  expect(
    await compareChain(ledger, [{ ...key, pending: [{ callId: 'w', toolName: 'x', requestedAt: at(0) }] }]),
  ).toEqual([]);
  const unknown = await compareChain(ledger, [{ ...handed, chainId: 'never-written' }]);
  expect(unknown).toHaveLength(1);
  expect(unknown[0]!.detail).toMatch(/^none of the 2 record\(s\) the run's history handed the ledger is in it/);
});
