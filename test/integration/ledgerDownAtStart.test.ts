// A worker whose PostgreSQL ledger is down when it starts (a database restart, a cluster coming up in another
// order) starts all the same: its runs decide as usual, their writes wait (retried), and once the database is back
// the ledger holds every entry once. A URL that names no database at all is still refused at start, in one line.
import { Runner } from '../../client';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { openWorkerLedger } from '../../worker/workerLedger';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { ledgerRegistry } from '../support/ledgerShop';
import { startPostgres, type TestPostgres } from '../support/postgres';

jest.setTimeout(300_000);

let pg: TestPostgres;
let h: Harness | undefined;
let store: LedgerStore | undefined;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(async () => {
  await h?.close();
  await store?.close();
  await pg?.remove();
});

test('the worker starts while its ledger is down, decisions go on, and the writes land once it is back', async () => {
  await pg.stop();
  h = await startHarness({ registry: ledgerRegistry(), ledgerUrl: pg.url });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const id = newId('ledger-later');
  h.model.script(id, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'a@example.com', subject: 'S', body: 'b' }, callId: 'm1' }] },
    { text: 'done' },
  ]);
  const paused = await runner.run('ledger-shop', 'go', { workflowId: id });
  expect(paused.status).toBe('AwaitingApproval');
  await runner.decide(id, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
  await pg.restart();
  store = (await openLedger(pg.url))!;
  const record = await eventually(async () => {
    const [r] = (await store!.approvals({ workflowId: id })).records;
    return r?.status === 'approved' ? r : undefined;
  }, 120_000); // the activity's backoff
  expect(record).toMatchObject({ callId: 'm1', approvers: ['ann'] });
  expect(
    (await store.chain({ workflowId: id, chainId: (await h.client.workflow.getHandle(id).describe()).runId })).map(
      (r) => r.seq,
    ),
  ).toEqual([1]);
  expect((await store.verify({})).problems).toEqual([]);
  await h.client.workflow.getHandle(id).result();
});

test('a ledger URL whose credentials or database are wrong is refused at start, without its password', async () => {
  const wrong = pg.url.replace('postgres://postgres@', 'postgres://nobody:s3cret@').replace(/\/postgres$/, '/nowhere');
  const err = await openWorkerLedger(wrong).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err?.name).toBe('ConfigError');
  expect(err?.message).toMatch(/^COUNTERSIGN_LEDGER_URL/);
  expect(err?.message).not.toContain('s3cret');
});
