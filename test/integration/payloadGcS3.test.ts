// The payload gc on S3 (a real S3-compatible server on loopback, SeaweedFS), as the worker's periodic sweep
// (COUNTERSIGN_PAYLOAD_GC_INTERVAL) runs it: two runs with a 300 KB argument each in a namespace of their own; one
// completes and passes retention, the other waits for an approval. The sweeps delete the first one's objects and
// nothing of the second, which still reads, answers, replays and then finishes.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { approveUntilDone } from '../../bench/growth';
import { Runner } from '../../client';
import type { PayloadStorageSettings } from '../../temporal.config';
import { startPayloadSweeper } from '../../worker/payloadSweeper';
import { eventually, newId } from '../support/fixtures';
import { BODY_BYTES, gcNamespace, pastRetention, pausedRun, stillWhole } from '../support/gcRuns';
import { type Harness, startHarness } from '../support/harness';
import { type S3Server, s3StorageOn, startS3Server } from '../support/s3Server';

jest.setTimeout(300_000);

let s3: S3Server;
let h: Harness;
let storage: PayloadStorageSettings;
beforeAll(async () => {
  let namespace: string;
  [s3, namespace] = await Promise.all([startS3Server(), gcNamespace()]);
  storage = s3StorageOn(s3);
  h = await startHarness({ payloadStorage: storage, namespace });
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
});

const bucket = async () => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  const objects = listed.Contents ?? [];
  return {
    objects: objects.length,
    bytes: objects.reduce((n, o) => n + (o.Size ?? 0), 0),
    bodies: objects.filter((o) => (o.Size ?? 0) >= BODY_BYTES).length,
  };
};

test("the worker's periodic sweep, one at a time, shrinks the bucket to what the waiting run needs", async () => {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const [done, waiting] = [newId('gc-s3-done'), newId('gc-s3-waiting')];
  const [completed, first] = await Promise.all([
    pausedRun(h, runner, done).then((paused) => approveUntilDone(runner, paused)),
    pausedRun(h, runner, waiting),
  ]);
  expect(completed.status).toBe('Completed');
  await pastRetention(h.client, done);
  const before = await bucket();
  expect(before.bodies).toBe(2);

  const lines: string[] = [];
  const settings = {
    namespace: h.client.options.namespace,
    payloadStorage: storage,
    payloadGc: { minAgeMs: 0, intervalMs: 200 },
  };
  const sweeper = startPayloadSweeper(h.client.workflowService, settings, h.worker, (line) => lines.push(line))!;
  await eventually(() => (sweeper.sweeps >= 2 ? true : undefined));
  await sweeper.stop();
  const sweeps = sweeper.sweeps;
  await new Promise((r) => setTimeout(r, 500));
  expect(sweeper.sweeps).toBe(sweeps); // stopped: no sweep after stop()
  expect(lines).toHaveLength(sweeps); // one line per sweep, each after the one before ended
  expect(lines[0]).toMatch(
    /^\[countersign\] payload gc: deleted [1-9]\d* objects \([\d.]+ MiB\) of \d+ \([\d.]+ MiB\); kept \d+ referenced, 0 recent; 1 executions read, 0 referenced objects missing; [\d.]+s$/,
  );
  expect(lines.slice(1).every((l) => l.startsWith('[countersign] payload gc: deleted 0 objects'))).toBe(true);

  const after = await bucket();
  console.log(
    `payload store (S3): before ${before.objects} objects, ${before.bytes} bytes; after ${after.objects} objects, ${after.bytes} bytes`,
  );
  expect(after.bodies).toBe(1);
  expect(after.bytes).toBeLessThan(before.bytes - BODY_BYTES);

  await stillWhole(h.client, runner, storage, waiting);
  const finished = await approveUntilDone(runner, first);
  expect([finished.status, finished.finalOutput]).toEqual(['Completed', `Sent ${waiting}.`]);
});
