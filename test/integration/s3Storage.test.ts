// Payload storage on S3, against a real S3-compatible server on loopback (SeaweedFS): large payloads and the
// model's transcript go to the bucket, history keeps references, and worker, Runner and the CLI (a separate process
// configured only through the environment) read them back alike.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { approveUntilDone, newsletterScript } from '../../bench/growth';
import { historyFigures } from '../../bench/history';
import { Runner } from '../../client';
import type { PayloadStorageSettings } from '../../temporal.config';
import { newId, outboxOf } from '../support/fixtures';
import { type Harness, startHarness } from '../support/harness';
import { type S3Server, s3StorageOn, startS3Server } from '../support/s3Server';
import { projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000);

let s3: S3Server;
let h: Harness;
let runner: Runner;
let settings: PayloadStorageSettings;
beforeAll(async () => {
  s3 = await startS3Server();
  settings = s3StorageOn(s3);
  h = await startHarness({ payloadStorage: settings });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
});

test('newsletters of 300 KB run through S3: references in history, objects in the bucket, one email each', async () => {
  const workflowId = newId('s3-newsletters');
  h.model.script(workflowId, newsletterScript(300_000).slice(-4)); // the last three newsletters and the final answer
  const first = await runner.run('email-assistant', 'Send alice the last newsletters', {
    workflowId,
    continueAsNewAfterEvents: 30,
    maxTurns: 10,
  });
  expect(JSON.parse(first.interruptions[0]!.arguments).body).toHaveLength(300_000); // read back from S3 by the client
  const done = await approveUntilDone(runner, first);
  expect(done.status).toBe('Completed');
  expect(done.approvals).toBe(3);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(3);

  const figures = await historyFigures(h.client, workflowId);
  expect(figures.largestPayload).toBeLessThan(256 * 1024);
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  const objects = listed.Contents ?? [];
  expect(objects.length).toBeGreaterThanOrEqual(3);
  expect(objects.filter((o) => (o.Size ?? 0) >= 300_000).map((o) => o.Key)).toHaveLength(3); // each body once (codec/valueCodec.ts)
  expect(objects.every((o) => o.Key?.startsWith('v0/ns/default/'))).toBe(true); // keyed by namespace, as Temporal's driver does

  // The CLI, in its own process, configured through the environment only, reads the offloaded conversation.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(projectRoot, 'bin/countersign.js'), 'conversation', workflowId, '--json'],
    {
      cwd: projectRoot,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: testAddress(),
        COUNTERSIGN_PAYLOAD_STORAGE: 's3',
        COUNTERSIGN_PAYLOAD_S3_BUCKET: s3.bucket,
        COUNTERSIGN_PAYLOAD_S3_ENDPOINT: s3.endpoint,
        COUNTERSIGN_PAYLOAD_S3_REGION: 'us-east-1',
      },
    },
  );
  const items = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; arguments?: string });
  expect(items).toHaveLength(8); // the request, three calls and their outputs, the answer
  const bodies = items
    .filter((i) => i.type === 'function_call')
    .map((i) => (JSON.parse(i.arguments!) as { body: string }).body.length);
  expect(bodies).toEqual([300_000, 300_000, 300_000]);
});
