// One ledger per deployment: every ledger has an id, kept in the ledger itself (a copy keeps it; a ledger of schema
// 1 gets one when it migrates), every record and write result carries it. With two ledgers on one Temporal server
// (a worker writing A, the CLI reading B: the default .temporal/ledger.db opened from two folders), `ledger verify`
// and `approvals` name the runs written to A as such, not as missing; with the worker's own ledger, as before; and a
// record removed from that ledger is still named as a problem, never as another ledger's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { AgentRegistry, defineAgent } from '../../agents';
import { sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import type { LedgerEntry, LedgerWrite } from '../../contract/ledgerRecords';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { checkChain } from '../../client/approvals/ledgerVerify';
import { cliEnv, countersignExit } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { type TestPostgres, startPostgres } from '../support/postgres';
import { type Tamper, tampererOf } from '../support/ledgerStores';
import { schemaThreeLedger } from '../support/ledgerSchema3';

jest.setTimeout(300_000);

const folder = mkdtempSync(path.join(tmpdir(), 'countersign-ledger-ids-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const entry = (seq: number, callId: string): LedgerEntry => ({
  seq,
  callId,
  toolName: 'refund',
  decision: 'approved',
  approver: 'Ann',
  via: 'signal',
  requestedAt: at(0),
  decidedAt: at(10),
});
const write = (entries: LedgerEntry[]): LedgerWrite => ({
  workflowId: 'schema-1',
  chainId: 'schema-1-first',
  taskQueue: 'q-schema-1',
  agent: 'support',
  entries,
});

/**
 * A ledger taken back to schema 1 as a version before ids left it: no ledger_meta, no ledger_id, one record; and
 * none of schema 3 (the reviews index, the records' places in the checkpoints' tree, the pruned leaves).
 */
async function schemaOneLedger(url: string, exec: Tamper) {
  await schemaThreeLedger(url, [write([entry(1, 'a')])]);
  for (const sql of [
    'DROP INDEX ledger_entries_reviews',
    'DROP INDEX ledger_entries_leaf',
    'ALTER TABLE ledger_entries DROP COLUMN ledger_seq',
    'DROP TABLE ledger_pruned_leaves',
  ])
    await exec(sql);
  await exec('DROP TABLE ledger_meta');
  await exec('ALTER TABLE ledger_entries DROP COLUMN ledger_id');
  await exec('DELETE FROM ledger_schema WHERE version > 1');
}

describe.each(['sqlite', 'postgres'] as const)('the %s ledger', (kind) => {
  let server: TestPostgres | undefined;
  let url: string;
  let exec: Tamper;
  beforeAll(async () => {
    if (kind === 'sqlite') url = path.join(folder, 'schema-1.db');
    else url = (server = await startPostgres()).url;
    exec = tampererOf(url);
  });
  afterAll(async () => server?.remove());

  test('a ledger of schema 1 (before ids) migrates: it gets an id, its records carry it, they still verify, and a checkpoint places them', async () => {
    await schemaOneLedger(url, exec);
    // Each record's ledger: its ledger_id, NULL for this ledger's own (schema 5 keeps the id once, in ledger_meta).
    const ledgerIds = async () =>
      (
        await exec(
          `SELECT COALESCE(ledger_id, (SELECT value FROM ledger_meta WHERE name = 'ledger_id')) AS id FROM ledger_entries ORDER BY seq`,
        )
      ).map((r) => r.id);
    const upgraded = (await openLedger(url)) as LedgerStore & { migrated: number[] };
    try {
      expect(upgraded.migrated).toEqual([2, 3, 4, 5, 6]);
      expect(upgraded.id).toMatch(/^[0-9a-f]{16}$/);
      expect(await ledgerIds()).toEqual([upgraded.id]);
      expect((await upgraded.approvals({ taskQueue: 'q-schema-1' })).records.map((r) => r.callId)).toEqual(['a']);
      expect((await upgraded.verify({})).problems).toEqual([]);
      const result = await upgraded.write(write([entry(1, 'a'), entry(2, 'b')]));
      expect(result).toEqual({ written: 1, skipped: 1, ledgerId: upgraded.id });
      expect(await ledgerIds()).toEqual([upgraded.id, upgraded.id]);
      expect(await upgraded.heldRuns(['schema-1', 'never-written'])).toEqual(new Set(['schema-1']));
      expect(await upgraded.placeLeaves()).toEqual({ size: 2, records: 2, checkpointed: 0 });
      expect((await upgraded.leaves(0, 10)).map((l) => [l.index, l.seq])).toEqual([
        [1, 1],
        [2, 2],
      ]);
    } finally {
      await upgraded.close();
    }
    const again = (await openLedger(url)) as LedgerStore & { migrated: number[] };
    try {
      expect({ migrated: again.migrated, id: again.id }).toEqual({ migrated: [], id: upgraded.id });
    } finally {
      await again.close();
    }
  });
});

test('a copy of a SQLite ledger keeps its id; another ledger has another', async () => {
  const original = (await openLedger(path.join(folder, 'original.db')))!;
  const copy = path.join(folder, 'copy.db');
  const db = new DatabaseSync(path.join(folder, 'original.db'));
  db.exec(`VACUUM INTO '${copy}'`);
  db.close();
  const [copied, other] = [(await openLedger(copy))!, (await openLedger(path.join(folder, 'other.db')))!];
  try {
    expect(copied.id).toBe(original.id);
    expect(other.id).not.toBe(original.id);
  } finally {
    for (const l of [original, copied, other]) await l.close();
  }
});

test("verify's check of one chain: records the history says went to another ledger are that ledger's, not missing", async () => {
  const store = (await openLedger(path.join(folder, 'checked.db')))!;
  try {
    const mine = store.id!;
    const handed = (seqs: number[], ledgerId?: string) => ({
      write: write(seqs.map((seq) => entry(seq, `k${seq}`))),
      ...(ledgerId ? { ledgerId } : {}),
    });
    await store.write(write([entry(1, 'k1'), entry(2, 'k2')]));
    const mixed = await checkChain(store, [handed([1, 2], mine), handed([3], 'f00d'), handed([4], mine)]);
    expect(mixed.problems.map((p) => p.detail)).toEqual(["seq 4 is in the run's history but not in the ledger"]);
    expect(mixed.elsewhere).toMatchObject({ ledgerId: 'f00d', thisLedgerId: mine, records: 1 });
    expect(mixed.elsewhere!.detail).toBe(
      `written to ledger f00d, not this one (${mine}): set COUNTERSIGN_LEDGER_URL the same for the worker, the CLI and the inbox`,
    );
    const gone = (h: ReturnType<typeof handed>) => ({ ...h, write: { ...h.write, chainId: 'never-written' } });
    const all = await checkChain(store, [gone(handed([1, 2], 'f00d'))]);
    expect(all).toMatchObject({ problems: [], elsewhere: { ledgerId: 'f00d', records: 2 } });
    // Results recorded before ledger ids: as before.
    const before = await checkChain(store, [gone(handed([1, 2]))]);
    expect(before.elsewhere).toBeUndefined();
    expect(before.problems.map((p) => p.detail)).toEqual([
      "none of the 2 record(s) the run's history handed the ledger is in it (ledger backfill writes a retained run in)",
    ]);
  } finally {
    await store.close();
  }
});

describe('two ledgers on one Temporal server', () => {
  const ledgerA = path.join(folder, 'a', 'ledger.db'); // the worker's
  const ledgerB = path.join(folder, 'b', 'ledger.db'); // the CLI's, in another folder
  const fix = 'set COUNTERSIGN_LEDGER_URL the same for the worker, the CLI and the inbox';
  const clerk = defineAgent({ name: 'ledger-id-clerk', instructions: 'test', tools: [sendEmail] });
  let h: Harness;
  let idA: string;
  let idB: string;
  const runs: string[] = [];
  const cli = (ledger: string, ...args: string[]) =>
    countersignExit(['--task-queue', h.taskQueue, ...args], cliEnv({ COUNTERSIGN_LEDGER_URL: ledger }));

  beforeAll(async () => {
    for (const file of [ledgerA, ledgerB]) {
      const opened = (await openLedger(file))!;
      if (file === ledgerA) idA = opened.id!;
      else idB = opened.id!;
      await opened.close();
    }
    h = await startHarness({ registry: new AgentRegistry([clerk]), ledgerUrl: ledgerA });
    const runner = new Runner(h.client, { taskQueue: h.taskQueue });
    for (const i of [1, 2]) {
      const workflowId = newId(`ledger-ids-${i}`);
      const args = { to: 'a@example.com', subject: 'S', body: 'b' };
      h.model.script(workflowId, [
        { toolCalls: [{ name: 'send_email', arguments: args, callId: 'c1' }] },
        { text: 'ok' },
      ]);
      await runner.startOnly('ledger-id-clerk', 'do it', { workflowId });
      await runner.nextPause(workflowId);
      await runner.decide(workflowId, [{ callId: 'c1', decision: 'approve', approver: 'ann' }]);
      expect((await runner.nextPause(workflowId)).status).toBe('Completed'); // its last ledger write confirmed
      runs.push(workflowId);
    }
  });
  afterAll(async () => h?.close());

  test('one ledger: verify and approvals as before, and they say which ledger they read', async () => {
    const verified = await cli(ledgerA, 'ledger', 'verify');
    expect(verified).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.stringMatching(
        new RegExp(
          `^approvals ledger: sqlite ${ledgerA} \\(id ${idA}\\)\nledger verified: \\d+ chain\\(s\\), \\d+ record\\(s\\), 2 compared with their run's history; no problems\n$`,
        ),
      ),
    });
    const approvals = await cli(ledgerA, 'approvals');
    expect({ code: approvals.code, stderr: approvals.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = approvals.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`approvals ledger: sqlite ${ledgerA} (id ${idA})`);
    expect(lines.at(-1)).toBe('2 approvals in 2 run(s): 2 approved');
  });

  test('the CLI on another ledger: verify and approvals name the ledger the runs were written to', async () => {
    const verified = await cli(ledgerB, 'ledger', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.stdout).toBe(`approvals ledger: sqlite ${ledgerB} (id ${idB})\n`);
    const lines = verified.stderr.trimEnd().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(
      runs.map((id) => expect.stringMatching(new RegExp(`^countersign: run ${id} \\(chain [\\w-]+\\): `))),
    );
    for (const line of lines.slice(0, -1))
      expect(line.replace(/^.*?\): /, '')).toBe(`written to ledger ${idA}, not this one (${idB}): ${fix}`);
    expect(lines.at(-1)).toBe(
      "countersign: 2 run(s) written to another ledger; 0 chain(s), 0 record(s), 2 compared with their run's history",
    );
    expect(verified.stderr).not.toMatch(/none of the|not in the ledger|problem/);

    const elsewhere = `countersign: 2 run(s) on task queue ${h.taskQueue} written to ledger ${idA}, not this one (${idB}): ${fix}\n`;
    expect(await cli(ledgerB, 'approvals')).toEqual({
      code: 0,
      stdout: `approvals ledger: sqlite ${ledgerB} (id ${idB})\nNo approvals match.\n`,
      stderr: elsewhere,
    });
    expect(await cli(ledgerB, 'approvals', '--json')).toEqual({ code: 0, stdout: '[]\n', stderr: elsewhere });
    expect(await cli(ledgerA, 'approvals', '--count')).toEqual({ code: 0, stdout: '2\n', stderr: '' });
  });

  test("a record removed from the worker's own ledger is still a problem, not another ledger's", async () => {
    const db = new DatabaseSync(ledgerA);
    try {
      const removed = db
        .prepare('DELETE FROM ledger_entries WHERE chain IN (SELECT id FROM ledger_chains WHERE workflow_id = ?)')
        .run(runs[0]!);
      expect(removed.changes).toBeGreaterThanOrEqual(1);
    } finally {
      db.close();
    }
    const verified = await cli(ledgerA, 'ledger', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain(`countersign: removed: run ${runs[0]} (chain `);
    expect(verified.stderr).toContain(`differs from history: run ${runs[0]} (chain `);
    expect(verified.stderr).not.toContain('written to ledger');
  });
});
