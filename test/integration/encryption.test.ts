// With COUNTERSIGN_ENCRYPTION_KEYS, history holds ciphertext only: a client without the key reads no arguments,
// results or conversation text; the codec server decodes for the Web UI (CORS, bearer token).
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { EncryptionCodec } from '../../codec/encryptionCodec';
import { Runner } from '../../client';
import { startCodecServer } from '../../servers/codecServer';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { historyText as rawHistoryText, newId } from '../support/fixtures';
import { startHarness, testPayloadStorage, type Harness } from '../support/harness';
import { openPayloadStorage } from '../../storage/payloadStorage';
import { testAddress } from '../support/testServer';

const keys = `k1:${randomBytes(32).toString('base64')}`;
let h: Harness;
let plain: Harness;
beforeAll(async () => {
  h = await startHarness({ encryptionKeys: keys });
  plain = await startHarness();
});
afterAll(async () => {
  await h?.close();
  await plain?.close();
});

/** A client without the key reads the raw history. */
async function historyText(workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: testAddress() });
  try {
    return await rawHistoryText(new Client({ connection }).workflow.getHandle(workflowId));
  } finally {
    await connection.close();
  }
}

async function approvalCycle(harness: Harness, workflowId: string) {
  const runner = new Runner(harness.client, { taskQueue: harness.taskQueue });
  const paused = await runner.run('email-assistant', 'Send an email to zed@example.com about Project NIGHTJAR', {
    workflowId,
  });
  expect(paused.interruptions[0]!.arguments).toContain('zed@example.com'); // the client with the key reads it
  const done = await runner.run(
    'email-assistant',
    paused.toState().approve(paused.interruptions[0]!, { approver: 'ann', reason: 'NIGHTJAR ok' }),
  );
  expect(done.finalOutput).toBe("send_email: Email sent to zed@example.com with subject 'Project NIGHTJAR'");
}

test('a whole approval cycle leaves no plaintext in history; the same run unencrypted shows it (control)', async () => {
  const encrypted = newId('encrypted');
  await approvalCycle(h, encrypted);
  const text = await historyText(encrypted);
  expect(text).toContain('binary/encrypted');
  for (const secret of ['NIGHTJAR', 'zed@example.com', 'Email sent to', 'NIGHTJAR ok'])
    expect(text).not.toContain(secret);

  const clear = newId('clear');
  await approvalCycle(plain, clear);
  const clearText = await historyText(clear);
  for (const secret of ['NIGHTJAR', 'zed@example.com', 'Email sent to']) expect(clearText).toContain(secret);
});

test('the codec server decodes for the Web UI: CORS preflight, bearer token, errors', async () => {
  const codec = EncryptionCodec.fromSpec(keys);
  const server = await startCodecServer({
    codecs: [codec],
    port: 0,
    origins: ['http://localhost:8233'],
    token: 't0ken',
  });
  try {
    const [enc] = await codec.encode([
      {
        metadata: { encoding: new Uint8Array(Buffer.from('json/plain')) },
        data: new Uint8Array(Buffer.from('"hello NIGHTJAR"')),
      },
    ]);
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(enc!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
          ),
          data: Buffer.from(enc!.data!).toString('base64'),
        },
      ],
    });

    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');

    const stranger = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();

    expect((await fetch(`${server.url}/decode`, { method: 'POST', body })).status).toBe(401);
    const ok = await fetch(`${server.url}/decode`, {
      method: 'POST',
      body,
      headers: { authorization: 'Bearer t0ken', origin: 'http://localhost:8233' },
    });
    expect(ok.status).toBe(200);
    const decoded = (await ok.json()) as { payloads: Array<{ data: string; metadata: Record<string, string> }> };
    expect(Buffer.from(decoded.payloads[0]!.data, 'base64').toString()).toBe('"hello NIGHTJAR"');
    expect(Buffer.from(decoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');

    const junk = await fetch(`${server.url}/decode`, {
      method: 'POST',
      body: 'nope',
      headers: { authorization: 'Bearer t0ken' },
    });
    expect(junk.status).toBe(400);
  } finally {
    await server.close();
  }
});

/** Every file under a folder, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]));

test('a large payload goes to the store encrypted; history keeps a reference; the codec server fetches and decrypts it', async () => {
  const workflowId = newId('encrypted-large');
  const body = `Project NIGHTJAR, the long version. ${'Classified paragraph. '.repeat(16_000)}`; // about 350 KB
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'zed@example.com', subject: 'NIGHTJAR', body }, callId: 'big' },
      ],
    },
    { text: 'sent' },
  ]);
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const paused = await runner.run('email-assistant', 'Send zed the long NIGHTJAR brief', { workflowId });
  expect(JSON.parse(paused.interruptions[0]!.arguments).body).toBe(body); // the client with the key and the store reads it whole

  // History holds ciphertext only, and small: the large payloads are references (to the store, encrypted there).
  const { events } = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const payloads: Array<{ metadata: Record<string, string>; data: string }> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const p = v as { metadata?: Record<string, string>; data?: string };
      if (p.metadata?.encoding && typeof p.data === 'string') payloads.push({ metadata: p.metadata, data: p.data });
      Object.values(v).forEach(walk);
    }
  };
  walk(JSON.parse(JSON.stringify(events)) as unknown);
  expect(payloads.length).toBeGreaterThan(0);
  expect(Math.max(...payloads.map((p) => Buffer.from(p.data, 'base64').length))).toBeLessThan(64 * 1024);
  expect(await historyText(workflowId)).not.toContain('NIGHTJAR');
  // The stored payloads are the encrypted ones.
  const stored = filesUnder(testPayloadStorage.kind === 'file' ? testPayloadStorage.dir : '').map((f) =>
    readFileSync(f).toString('latin1'),
  );
  expect(stored.length).toBeGreaterThan(0);
  expect(stored.some((text) => text.includes('Classified paragraph'))).toBe(false);

  const storage = openPayloadStorage(testPayloadStorage, keys);
  const server = await startCodecServer({
    codecs: storage.codecs,
    externalStorage: storage.externalStorage,
    port: 0,
    origins: ['http://localhost:8233'],
  });
  try {
    const res = await fetch(`${server.url}/decode`, { method: 'POST', body: JSON.stringify({ payloads }) });
    expect(res.status).toBe(200);
    const decoded = (await res.json()) as { payloads: Array<{ data: string }> };
    expect(
      decoded.payloads.some((p) => Buffer.from(p.data, 'base64').toString().includes('Classified paragraph')),
    ).toBe(true);
  } finally {
    await server.close();
  }
});
