// The payload store stays bounded: `countersign storage gc` (a separate process, configured through the environment)
// deletes what no remaining run can read and nothing one of them can. Eight runs with a 300 KB argument each, in a
// namespace of their own with a file store of their own: three pass retention (deleted as retention deletes them),
// three completed runs stay inside it, two stay open, waiting for an approval. The store shrinks to what the five
// need; each still reads its conversation, answers its queries and replays; the open ones then finish.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approveUntilDone } from '../../bench/growth';
import { folderBytes, storeFiles } from '../../bench/storeBreakdown';
import { type AgentRunResult, Runner } from '../../client';
import type { PayloadGcReport } from '../../storage/payloadGc';
import type { PayloadStorageSettings } from '../../temporal.config';
import { cliEnv, countersign } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { BODY_BYTES, gcNamespace, pastRetention, pausedRun, stillWhole } from '../support/gcRuns';
import { type Harness, startHarness } from '../support/harness';

jest.setTimeout(600_000);

const storeDir = mkdtempSync(join(tmpdir(), 'countersign-gc-'));
const storage: PayloadStorageSettings = { kind: 'file', dir: storeDir, thresholdBytes: 256 * 1024 };
let h: Harness;
let runner: Runner;
let namespace: string;
const gone: string[] = [];
const closed: string[] = [];
const open: string[] = [];
const waiting = new Map<string, AgentRunResult>();

/** Files holding one of the bodies (each distinct body is one file of its own, codec/valueCodec.ts). */
const bodyFiles = () => [...storeFiles(storeDir)].filter((f) => statSync(join(storeDir, f)).size >= BODY_BYTES).length;
const snapshotOfStore = () => [...storeFiles(storeDir)].sort().map((f) => `${f} ${statSync(join(storeDir, f)).size}`);

async function gc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = cliEnv({
    TEMPORAL_NAMESPACE: namespace,
    COUNTERSIGN_PAYLOAD_STORAGE: 'file',
    COUNTERSIGN_PAYLOAD_DIR: storeDir,
  });
  return countersign(['storage', 'gc', ...args], env).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

beforeAll(async () => {
  namespace = await gcNamespace();
  h = await startHarness({ payloadStorage: storage, namespace });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  // The eight runs are independent: started and decided side by side.
  const ids = Array.from({ length: 8 }, (_, i) => newId(`gc-${i}`));
  await Promise.all(
    ids.map(async (workflowId, i) => {
      const first = await pausedRun(h, runner, workflowId);
      if (i >= 6) waiting.set(workflowId, first);
      else expect((await approveUntilDone(runner, first)).status).toBe('Completed');
    }),
  );
  gone.push(...ids.slice(0, 3));
  closed.push(...ids.slice(3, 6));
  open.push(...ids.slice(6));
  await Promise.all(gone.map((workflowId) => pastRetention(h.client, workflowId)));
});
afterAll(async () => {
  await h?.close();
  rmSync(storeDir, { recursive: true, force: true });
});

test('a dry run deletes nothing: with the default minimum age everything unreferenced is too recent; with --min-age 0s it lists what would go', async () => {
  const before = snapshotOfStore();
  expect(bodyFiles()).toBe(8);

  const cautious = await gc('--dry-run', '--json');
  expect(cautious).toMatchObject({ code: 0, stderr: '' });
  const kept = JSON.parse(cautious.stdout) as PayloadGcReport;
  expect(kept).toMatchObject({
    dryRun: true,
    namespace,
    minAgeMs: 3_600_000,
    executions: 5,
    deleted: { objects: 0, bytes: 0 },
    missing: [],
  });
  expect(kept.recent.objects).toBeGreaterThanOrEqual(3); // at least the three gone runs' bodies
  expect(kept.reachable.objects + kept.recent.objects).toBe(before.length);

  const eager = await gc('--dry-run', '--min-age', '0s', '--json');
  const would = JSON.parse(eager.stdout) as PayloadGcReport;
  expect(would.deleted.objects).toBe(kept.recent.objects);
  expect(would.deletedIds).toHaveLength(would.deleted.objects);
  expect(would.deletedIds.filter((id) => statSync(join(storeDir, id)).size >= BODY_BYTES)).toHaveLength(3); // the gone runs' bodies
  expect(would.after).toEqual(would.before);
  expect(snapshotOfStore()).toEqual(before); // nothing changed
});

test('a bad flag gets one line saying what to do, and changes nothing', async () => {
  const before = snapshotOfStore();
  const bad = await gc('--min-age', 'soon');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toBe('countersign: --min-age must be a duration such as 1h, 30m or 0s, got "soon"\n');
  expect(snapshotOfStore()).toEqual(before);
});

test('gc deletes what only the runs past retention could read; the rest still read, answer and replay', async () => {
  const [bytesBefore, filesBefore] = [folderBytes(storeDir), storeFiles(storeDir).size];
  const swept = await gc('--min-age', '0s', '--json');
  expect(swept).toMatchObject({ code: 0, stderr: '' });
  const report = JSON.parse(swept.stdout) as PayloadGcReport;
  const [bytesAfter, filesAfter] = [folderBytes(storeDir), storeFiles(storeDir).size];
  console.log(
    `payload store (file): before ${filesBefore} files, ${bytesBefore} bytes; after ${filesAfter} files, ${bytesAfter} bytes; deleted ${report.deleted.objects} objects, ${report.deleted.bytes} bytes; ${report.executions} executions read`,
  );
  expect(report).toMatchObject({
    dryRun: false,
    executions: 5,
    touched: 0,
    missing: [],
    before: { objects: filesBefore, bytes: bytesBefore },
  });
  expect(report.after).toEqual({ objects: filesAfter, bytes: bytesAfter });
  expect(report.reachable.objects).toBe(filesAfter); // what is left is exactly what the remaining runs reach
  expect(report.deleted.bytes).toBeGreaterThan(3 * BODY_BYTES);
  expect(bodyFiles()).toBe(5); // the three gone runs' bodies went; the five remaining runs' stayed
  expect(readdirSync(storeDir).every((d) => !d.includes('.gc-'))).toBe(true);

  await Promise.all([...closed, ...open].map((workflowId) => stillWhole(h.client, runner, storage, workflowId)));
  // The open runs go on after the sweep: approved, the tool gets its 300 KB body back from the store.
  await Promise.all(
    open.map(async (workflowId) => {
      const done = await approveUntilDone(runner, waiting.get(workflowId)!);
      expect([done.status, done.finalOutput]).toEqual(['Completed', `Sent ${workflowId}.`]);
    }),
  );

  // Answers to queries with large values leave envelopes no history references: the next sweep takes them, and
  // nothing any run reads.
  const again = JSON.parse((await gc('--min-age', '0s', '--json')).stdout) as PayloadGcReport;
  expect(again).toMatchObject({ executions: 5, missing: [] });
  expect(bodyFiles()).toBe(5);
  await Promise.all([...closed, ...open].map((workflowId) => stillWhole(h.client, runner, storage, workflowId)));
});
