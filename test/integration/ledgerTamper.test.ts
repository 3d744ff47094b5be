// Issue 45's tamper suite, on a real SQLite file and a real PostgreSQL: a ledger with decided, quorum, waiting,
// cut-off and reviewed calls verifies clean and is checkpointed twice (signed, into a witness folder); then each
// hand edit below is made, and `countersign ledger verify --checkpoints` exits 1 with a line naming what changed:
// a report row's status, approver and times, an approvers row, a chain's tail deleted with its head fixed, a whole chain,
// a run's records deleted (as after its history left Temporal), records reordered, and a forged newest checkpoint.
// Edits the chains alone cannot see (a tail deleted and covered up) are shown to pass without the witness.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPrivateKey } from 'node:crypto';
import { generateApproverKey } from '../../client/signing/decisionSigning';
import { type Checkpoint, signCheckpoint } from '../../storage/ledger/ledgerCheckpoint';
import { cliEnv, countersignExit } from '../support/countersignCli';
import { type Kind, type TestLedger, at, entry, openTestLedger, run } from '../support/ledgerStores';

jest.setTimeout(300_000);

describe.each<Kind>(['sqlite', 'postgres'])('the %s ledger, tampered with', (kind) => {
  let ledger: TestLedger;
  let folder: string;
  let witness: string;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => countersignExit(['--task-queue', `q-tamper-none-${kind}`, ...args], env);
  const verify = (...more: string[]) => cli('ledger', 'verify', ...more);
  const sql = (s: string) => ledger.tamper(s);
  // A run's rows: the big tables name their chain by ledger_chains' id (schema 6).
  const ofRun = (workflowId: string) =>
    `chain IN (SELECT id FROM ledger_chains WHERE workflow_id IN ('${workflowId}'))`;

  beforeAll(async () => {
    ledger = await openTestLedger(kind);
    folder = mkdtempSync(path.join(tmpdir(), 'countersign-tamper-'));
    witness = path.join(folder, 'witness');
    // The key as the docs make it: a folder of its own, a key set apart from any approvers'.
    const made = await countersignExit(['ledger', 'checkpoint-key', '--dir', path.join(folder, 'keys'), '--json']);
    const { privateKeyFile, keySetFile } = JSON.parse(made.stdout) as { privateKeyFile: string; keySetFile: string };
    expect(keySetFile).toBe(path.join(folder, 'keys', 'ledger-checkpoint.jwks.json'));
    env = cliEnv({
      COUNTERSIGN_LEDGER_URL: ledger.url,
      COUNTERSIGN_LEDGER_WITNESS: witness,
      COUNTERSIGN_LEDGER_CHECKPOINT_KEY: privateKeyFile,
      COUNTERSIGN_LEDGER_CHECKPOINT_KEYS: keySetFile,
    });
    const s = ledger.store;
    const q = 'q-tamper';
    await s.write(run('status', q, { entries: [entry(1, 'c1', { decision: 'rejected', approver: 'Bob' })] }));
    await s.write(
      run('quorum', q, {
        entries: [
          entry(1, 'c1', { decision: 'approval_counted', approver: 'Ann' }),
          entry(2, 'c1', { decision: 'approved', approver: 'Bob' }),
        ],
      }),
    );
    await s.write(run('tail', q, { entries: [1, 2, 3].map((n) => entry(n, `c${n}`)) }));
    await s.write(run('chain', q, { entries: [entry(1, 'c1'), entry(2, 'c2')] }));
    for (const chainId of ['retained-first', 'retained-second'])
      await s.write(run('retained', q, { chainId, entries: [entry(1, 'c1')] }));
    await s.write(run('order', q, { entries: [entry(1, 'c1'), entry(2, 'c2')] }));
    // Waiting, then cut off by the run's end; an audit-only call reviewed (the review written before its call).
    const waiting = { callId: 'w1', toolName: 'refund', requestedAt: at(2026, 0) };
    await s.write(run('waits', q, { entries: [entry(1, 'c1')], pending: [waiting] }));
    await s.write(run('waits', q, { closed: true }));
    const reviews = { workflowId: `reviews-${kind}`, chainId: 'reviews-first', taskQueue: q, agent: '-' };
    const review = {
      seq: 1,
      workflowId: 'audited',
      callId: 'a1',
      verdict: 'reviewed' as const,
      reviewer: 'Rita',
      reviewedAt: at(2026, 50),
    };
    await s.write({ ...reviews, reviews: [review] });
    await s.write(
      run('audited', q, {
        entries: [entry(1, 'a1', { decision: 'audited', review: true, via: 'run', approver: undefined })],
      }),
    );
  });
  afterAll(async () => {
    await ledger?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('the untouched ledger verifies clean, and two checkpoints go to the witness', async () => {
    expect(await ledger.store.verify({})).toMatchObject({ problems: [] });
    expect(await cli('ledger', 'checkpoint', '--witness', 'ftp://witness.example/x')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'countersign: witness "ftp://witness.example/x": give a folder, s3://bucket/prefix or an https:// webhook\n',
    });
    const first = await cli('ledger', 'checkpoint');
    expect(first).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.stringMatching(/^checkpoint of size 15 \(15 record\(s\) kept\), root [\w-]{43}, kept at /),
    });
    expect((await cli('ledger', 'checkpoint')).stdout).toBe(
      'no record since the last checkpoint (size 15, 15 record(s)): none taken\n',
    );
    await ledger.store.write(run('tail', 'q-tamper', { entries: [1, 2, 3, 4].map((n) => entry(n, `c${n}`)) }));
    expect((await cli('ledger', 'checkpoint')).stdout).toMatch(/^checkpoint of size 16 \(16 record\(s\) kept\)/);
    expect(readdirSync(witness)).toHaveLength(2);
    const clean = await verify('--checkpoints', witness);
    expect(clean).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.stringContaining(
        "ledger verified: 10 chain(s), 16 record(s), 0 compared with their run's history, 2 of 2 checkpoint(s) trusted (up to size 16); no problems",
      ),
    });
  });

  test("a report row's status, approver and times, and an approvers row: named with the run, the call and the column", async () => {
    await sql(
      `UPDATE ledger_calls SET status = 'approved', approvers = '["alice"]', task_queue = 'q-other', wait_ms = wait_ms + 1000
       WHERE ${ofRun('status')}`,
    );
    // Times the table keeps as flags and differences (decided: event_at; requested_at: decided_at less wait_ms).
    await sql(`UPDATE ledger_calls SET decided = 0 WHERE ${ofRun('quorum')}`);
    await sql(
      `UPDATE ledger_call_approvers SET approver = 'Mallory', approver_canonical = 'mallory' WHERE ${ofRun('quorum')} AND approver = 'Ann'`,
    );
    const result = await verify();
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'countersign: changed: run status (chain status-first) call c1 (seq 1): ledger_calls.task_queue is "q-other", its records say "q-tamper"',
        'countersign: changed: run status (chain status-first) call c1 (seq 1): ledger_calls.status is "approved", its chain says "rejected"',
        'countersign: changed: run status (chain status-first) call c1 (seq 1): ledger_calls.approvers is "[\\"alice\\"]", its chain says "[\\"Bob\\"]"',
        'countersign: changed: run status (chain status-first) call c1 (seq 1): ledger_calls.wait_ms is "11000", its chain says "10000"',
        'countersign: changed: run status (chain status-first) call c1 (seq 1): ledger_calls.requested_at is "2025-12-31T23:59:59.000Z", its chain says "2026-01-01T00:00:00.000Z"',
        'countersign: changed: run quorum (chain quorum-first) call c1 (seq 2): ledger_calls.decided_at is empty, its chain says "2026-01-01T00:00:10.000Z"',
        'countersign: changed: run quorum (chain quorum-first) call c1 (seq 2): ledger_calls.requested_at is empty, its chain says "2026-01-01T00:00:00.000Z"',
        'countersign: changed: run quorum (chain quorum-first) call c1 (seq 2): ledger_call_approvers names "Mallory", who is not among its chain\'s approvers',
        'countersign: changed: run quorum (chain quorum-first) call c1 (seq 2): ledger_call_approvers is missing "Ann", one of its chain\'s approvers',
      ]),
    );
  });

  test("a chain's tail deleted and its head fixed (the call row too): the chains alone pass it, the checkpoint names it", async () => {
    const [third] = await sql(`SELECT hash FROM ledger_entries WHERE ${ofRun('tail')} AND seq = 3`);
    await sql(`DELETE FROM ledger_entries WHERE ${ofRun('tail')} AND seq = 4`);
    await sql(`DELETE FROM ledger_calls WHERE ${ofRun('tail')} AND call_id = 'c4'`);
    await sql(`DELETE FROM ledger_call_approvers WHERE ${ofRun('tail')} AND call_id = 'c4'`);
    await sql(
      `UPDATE ledger_chains SET last_seq = 3, last_pos = 3, last_hash = '${String(third!.hash)}' WHERE workflow_id = 'tail'`,
    );
    expect((await verify()).stderr).not.toContain('run tail ');
    const result = await verify('--checkpoints', witness);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "countersign: removed: run tail (chain tail-first) seq 4: the chain's tail is gone: 1 checkpointed record(s) after seq 3 (seq 4)\n",
    );
  });

  test('a whole chain, and a run whose history is gone: each chain named as removed as a whole', async () => {
    for (const table of ['ledger_entries', 'ledger_calls', 'ledger_call_approvers', 'ledger_chains'])
      await sql(
        `DELETE FROM ${table} WHERE ${table === 'ledger_chains' ? "workflow_id IN ('chain', 'retained')" : ofRun("chain', 'retained")}`,
      );
    expect((await verify()).stderr).not.toMatch(/run (chain|retained) /);
    const result = await verify('--checkpoints', witness);
    expect(result.code).toBe(1);
    const whole = (wf: string, chain: string, seqs: string) =>
      `countersign: removed: run ${wf} (chain ${chain}) seq 1: the whole chain is gone: ${seqs.split(', ').length} checkpointed record(s) (seq ${seqs}), e.g. a run deleted after its history left Temporal\n`;
    expect(result.stderr).toContain(whole('chain', 'chain-first', '1, 2'));
    expect(result.stderr).toContain(whole('retained', 'retained-first', '1'));
    expect(result.stderr).toContain(whole('retained', 'retained-second', '1'));
  });

  test('records reordered (their places in the tree swapped): both places named', async () => {
    const rows = await sql(`SELECT seq, ledger_seq FROM ledger_entries WHERE ${ofRun('order')} ORDER BY seq`);
    const [a, b] = rows.map((r) => Number(r.ledger_seq));
    await sql(
      `UPDATE ledger_entries SET ledger_seq = -1 WHERE ${ofRun('order')} AND seq = 1;
       UPDATE ledger_entries SET ledger_seq = ${a} WHERE ${ofRun('order')} AND seq = 2;
       UPDATE ledger_entries SET ledger_seq = ${b} WHERE ${ofRun('order')} AND seq = 1`,
    );
    const result = await verify('--checkpoints', witness);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `countersign: changed: run order (chain order-first) seq 1: place ${a} held this record when checkpointed (`,
    );
    expect(result.stderr).toContain(
      `it now holds run order (chain order-first) seq 2: records were reordered or replaced\n`,
    );
  });

  test("the witness's newest checkpoint replaced by a forged one: refused, bad signature", async () => {
    const newest = path.join(witness, readdirSync(witness).sort().at(-1)!);
    const real = JSON.parse(readFileSync(newest, 'utf8')) as Checkpoint;
    // Signed by a key of the same name that is not the trusted one: a tree that never had the deleted records.
    const { privateKeyFile } = generateApproverKey('ledger-checkpoint', path.join(folder, 'forger'));
    const jwk = JSON.parse(readFileSync(privateKeyFile, 'utf8')) as { x: string; d: string };
    const key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
    const { signature: _, ...unsigned } = real;
    writeFileSync(newest, JSON.stringify(signCheckpoint({ ...unsigned, rootHash: 'A'.repeat(43), leaves: [] }, key)));
    const result = await verify('--checkpoints', witness);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `countersign: changed: checkpoint ${newest} refused: bad signature: it was not signed by ledger-checkpoint's key as it reads now (forged or changed)\n`,
    );
    expect(result.stderr).toMatch(/1 of 2 checkpoint\(s\) trusted/);
  });
});
