// Schema 4 (issue 46, the compact ledger) upgrades a ledger of schema 3 in place, on a real SQLite file and a real
// PostgreSQL: the records, the calls and the report read as before, every chain still verifies, a chain written
// before goes on after, a record changed by hand before the upgrade is still named after it, and the records take
// their places in the checkpoints' tree. Schemas 5 and 6 follow in the same open (6: every chain a call names gets a
// ledger_chains row and an integer id, a run with only a waiting call too).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { schemaThreeLedger } from '../support/ledgerSchema3';
import { type Kind, all, at, entry, run, tampererOf } from '../support/ledgerStores';
import { type TestPostgres, startPostgres } from '../support/postgres';

jest.setTimeout(300_000);

const q = 'q-upgrade';
const writes = [
  run('plain', q, { entries: [entry(1, 'c1'), entry(2, 'c2', { decision: 'rejected', approver: 'Bob' })] }),
  run('quorum', q, {
    entries: [
      entry(1, 'c1', { decision: 'approval_counted', approver: 'Ann', decidedAt: at(2026, 5) }),
      entry(2, 'c1', { decision: 'approved', approver: 'Bob', decidedAt: at(2026, 20) }),
    ],
  }),
  run('changed', q, { entries: [entry(1, 'c1'), entry(2, 'c2')] }),
  // A run with a call still waiting and no record yet: a call row whose chain has no head (schema 6 gives it one).
  run('waiting', q, { pending: [{ callId: 'w1', toolName: 'refund', requestedAt: at(2026, 1) }] }),
];

describe.each<Kind>(['sqlite', 'postgres'])('a %s ledger of schema 3', (kind) => {
  let server: TestPostgres | undefined;
  let folder: string | undefined;
  let url: string;
  let store: (LedgerStore & { migrated: number[] }) | undefined;
  beforeAll(async () => {
    if (kind === 'sqlite') url = path.join((folder = mkdtempSync(path.join(tmpdir(), 'ledger-upgrade-'))), 'l.db');
    else url = (server = await startPostgres()).url;
    await schemaThreeLedger(url, writes);
    // Changed by hand before the upgrade: the record's approver, in its schema-3 body.
    await tampererOf(url)(
      `UPDATE ledger_entries SET body = replace(body, '"approver":"Ann"', '"approver":"Eve"') WHERE workflow_id = 'changed' AND seq = 2`,
    );
  });
  afterAll(async () => {
    await store?.close();
    await server?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('upgrades in place: the same records, report and verify; the changed record still named', async () => {
    const before = (await openLedger(url)) as LedgerStore & { migrated: number[] };
    await before.close();
    expect(before.migrated).toEqual([4, 5, 6]);
    store = (await openLedger(url)) as LedgerStore & { migrated: number[] };
    expect(store.migrated).toEqual([]);
    const records = await all(store, { taskQueue: q });
    expect(records.map((r) => [r.workflowId, r.callId, r.status, r.approvers])).toEqual([
      ['waiting', 'w1', 'pending', []],
      ['changed', 'c1', 'approved', ['Ann']],
      ['changed', 'c2', 'approved', ['Ann']],
      ['plain', 'c1', 'approved', ['Ann']],
      ['plain', 'c2', 'rejected', ['Bob']],
      ['quorum', 'c1', 'approved', ['Ann', 'Bob']],
    ]);
    const report = await store.report({ taskQueue: q });
    expect(report).toMatchObject({ total: 6, byOutcome: { approved: 4, rejected: 1, pending: 1 } });
    expect(Object.fromEntries(Object.entries(report.byApprover).map(([k, g]) => [k, g.total]))).toEqual({
      Ann: 4,
      Bob: 2,
    });
    const verified = await store.verify({});
    expect(verified.records).toBe(6);
    expect(verified.problems.map((p) => [p.workflowId, p.seq, p.problem, p.detail])).toEqual([
      ['changed', 2, 'changed', "record 2's hash does not match its content"],
    ]);
    expect((await store.chain({ workflowId: 'plain', chainId: 'plain-first' })).map((r) => r.entry)).toEqual(
      writes[0]!.entries,
    );
  });

  test('a chain written before the upgrade goes on after it, and every record takes a place in the tree', async () => {
    const result = await store!.write(
      run('plain', q, { entries: [entry(1, 'c1'), entry(2, 'c2'), entry(3, 'c3', { approver: 'Cy' })] }),
    );
    expect(result).toMatchObject({ written: 1, skipped: 2 });
    const verified = await store!.verify({});
    expect(verified.problems.map((p) => [p.workflowId, p.seq])).toEqual([['changed', 2]]);
    expect((await store!.report({ taskQueue: q, approver: 'cy' })).total).toBe(1);
    // The waiting run's call decided after the upgrade: its record joins the call row it already had.
    expect(await store!.heldRuns(['waiting', 'plain'])).toEqual(new Set(['plain']));
    expect(
      await store!.write(run('waiting', q, { entries: [entry(1, 'w1', { requestedAt: at(2026, 1) })] })),
    ).toMatchObject({ written: 1 });
    expect((await all(store!, { workflowId: 'waiting' })).map((r) => [r.callId, r.status])).toEqual([
      ['w1', 'approved'],
    ]);
    expect((await store!.verify({})).problems.map((p) => [p.workflowId, p.seq])).toEqual([['changed', 2]]);
    expect(await store!.placeLeaves()).toEqual({ size: 8, records: 8, checkpointed: 0 });
  });
});
