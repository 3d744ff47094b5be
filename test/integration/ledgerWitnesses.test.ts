// Where checkpoints go and what keeps them trustworthy: an S3 bucket (a real S3-compatible server) and a webhook (a
// loopback receiver; verify reads the copy it kept) hold checkpoints that verify; an object already there is never
// replaced; the worker's interval takes them on its own; prune after a checkpoint still verifies (the pruned
// records' leaf hashes stay), while a record deleted by hand does not; and the settings refuse a half-configured
// interval in one line. The tamper cases are in ledgerTamper.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateApproverKey } from '../../client/signing/decisionSigning';
import type { Checkpoint } from '../../storage/ledger/ledgerCheckpoint';
import { checkCheckpoints, takeCheckpoint } from '../../storage/ledger/ledgerCheckpoints';
import { keepCheckpoint, witnessOf } from '../../storage/ledger/ledgerWitness';
import { ConfigError, loadConfig } from '../../temporal.config';
import { startLedgerCheckpoints } from '../../worker/ledgerCheckpointer';
import { type Kind, type TestLedger, at, entry, openTestLedger, run } from '../support/ledgerStores';
import { type S3Server, startS3Server } from '../support/s3Server';
import { startWebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(300_000);

const folder = mkdtempSync(path.join(tmpdir(), 'countersign-witnesses-'));
const { privateKeyFile: keyFile, keySetFile: keysFile } = generateApproverKey('ledger-checkpoint', folder);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const old = (seq: number, callId: string) =>
  entry(seq, callId, { requestedAt: at(2010, seq), decidedAt: at(2010, seq + 1) });

describe.each<Kind>(['sqlite', 'postgres'])('the %s ledger', (kind) => {
  let ledger: TestLedger;
  beforeAll(async () => (ledger = await openTestLedger(kind)));
  afterAll(async () => ledger?.close());

  test('prune after a checkpoint: the pruned records still vouch for the tree; one deleted by hand does not', async () => {
    const witness = path.join(folder, `prune-${kind}`);
    await ledger.store.write(run('pruned', 'q-prune', { entries: [old(1, 'a'), old(2, 'b'), entry(3, 'c')] }));
    await ledger.store.write(run('kept', 'q-prune', { entries: [old(1, 'a'), old(2, 'b')] }));
    expect(await takeCheckpoint(ledger.store, { witness, keyFile })).toMatchObject({ treeSize: 5, records: 5 });
    expect(await ledger.store.prune(at(2011, 0))).toBe(4);
    await ledger.store.write(run('pruned', 'q-prune', { entries: [entry(4, 'd')] }));
    expect(await takeCheckpoint(ledger.store, { witness, keyFile })).toMatchObject({ treeSize: 6, records: 2 });
    expect(await checkCheckpoints(ledger.store, { witness, keysFile })).toEqual({
      read: 2,
      trusted: 2,
      treeSize: 6,
      problems: [],
    });
    await ledger.tamper(`DELETE FROM ledger_pruned_leaves WHERE workflow_id = 'kept'`);
    const { problems } = await checkCheckpoints(ledger.store, { witness, keysFile });
    expect(problems.map((p) => [p.workflowId, p.problem, p.detail])).toEqual([
      [
        'kept',
        'removed',
        'the whole chain is gone: 2 checkpointed record(s) (seq 1, 2), e.g. a run deleted after its history left Temporal',
      ],
    ]);
  });
});

describe('witnesses', () => {
  let ledger: TestLedger;
  let s3: S3Server;
  beforeAll(async () => {
    [ledger, s3] = await Promise.all([openTestLedger('sqlite'), startS3Server('countersign-witness')]);
    process.env.COUNTERSIGN_PAYLOAD_S3_ENDPOINT = s3.endpoint;
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  });
  afterAll(async () => {
    await ledger?.close();
    await s3?.close();
  });

  test('an S3 bucket keeps each checkpoint as a new object, never replaced, and verify reads them back', async () => {
    const witness = `s3://${s3.bucket}/ledger/checkpoints`;
    await ledger.store.write(run('s3-run', 'q-s3', { entries: [entry(1, 'a')] }));
    const first = await takeCheckpoint(ledger.store, { witness, keyFile });
    expect(first.where).toMatch(/^s3:\/\/countersign-witness\/ledger\/checkpoints\/checkpoint-000000000001-.*\.json$/);
    await ledger.store.write(run('s3-run', 'q-s3', { entries: [entry(1, 'a'), entry(2, 'b')] }));
    await takeCheckpoint(ledger.store, { witness, keyFile });
    expect(await checkCheckpoints(ledger.store, { witness, keysFile })).toMatchObject({
      read: 2,
      trusted: 2,
      problems: [],
    });
    // The same name again (a replay of the first): refused by the bucket, the first stays.
    const again = { treeSize: 1, takenAt: first.where!.match(/-(\d{4}-.*)\.json$/)![1] } as Checkpoint;
    await expect(keepCheckpoint(witnessOf(witness), again)).rejects.toThrow(
      `the witness already keeps ${first.where}: a checkpoint is never replaced`,
    );
  });

  test("a webhook gets each checkpoint as a POST; verify reads the receiver's copy", async () => {
    const receiver = await startWebhookReceiver();
    const kept = path.join(folder, 'received');
    mkdirSync(kept, { recursive: true });
    try {
      await ledger.store.write(run('hook-run', 'q-hook', { entries: [entry(1, 'a')] }));
      const taken = await takeCheckpoint(ledger.store, { witness: receiver.url, keyFile });
      expect(taken.where).toBe(receiver.url);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]).toMatchObject({
        format: 'countersign-ledger-checkpoint/1',
        treeSize: taken.treeSize,
      });
      // Its receiver keeps the checkpoints; earlier ones went to the bucket: the folder holds just this one.
      writeFileSync(path.join(kept, 'checkpoint.json'), JSON.stringify(receiver.received[0]));
      const checked = await checkCheckpoints(ledger.store, { witness: kept, keysFile });
      expect(checked.trusted).toBe(1);
      expect(checked.problems.map((p) => p.detail)).toEqual([
        `checkpoint of size ${taken.treeSize} (${(receiver.received[0] as unknown as { takenAt: string }).takenAt}): the checkpoints before it end at size 0, not 2`,
      ]);
      await expect(checkCheckpoints(ledger.store, { witness: receiver.url, keysFile })).rejects.toThrow(
        'a webhook witness cannot be read back: give --checkpoints the folder or s3:// bucket its receiver keeps them in',
      );
    } finally {
      await receiver.close();
    }
  });

  test("the worker's interval takes checkpoints on its own, only when records were written", async () => {
    const witness = path.join(folder, 'interval');
    const lines: string[] = [];
    await ledger.store.write(run('interval-run', 'q-interval', { entries: [entry(1, 'a')] }));
    const worker = { getState: () => 'RUNNING' };
    const settings = { ledgerCheckpoints: { intervalMs: 200, witness, keyFile } };
    const checkpointer = startLedgerCheckpoints(settings, ledger.store, worker, (l) => lines.push(l))!;
    try {
      const until = Date.now() + 20_000;
      while (!lines.length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 800)); // a few more rounds with nothing new written
    } finally {
      checkpointer.stop();
    }
    expect(lines).toEqual([
      expect.stringMatching(/^\[countersign\] ledger checkpoint of size \d+ \(\d+ records\) kept at /),
    ]);
    expect(readdirSync(witness)).toHaveLength(1);
  });

  test('an interval without a witness or a key: one line naming what is missing', () => {
    const env = { COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL: '1h', COUNTERSIGN_LEDGER_CHECKPOINT_KEY: keyFile };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(
      'COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL is set but COUNTERSIGN_LEDGER_WITNESS is not: a checkpoint needs a witness to keep it and a key to sign it (countersign keys generate ledger-checkpoint)',
    );
  });
});
