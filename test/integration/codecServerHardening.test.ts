// `countersign codec-server` as operators run it (a child process): oversized bodies get 413 while its memory stays
// flat, the bearer token is checked, a wildcard origin gets no credentials, it will not listen beyond loopback
// without a token, and a payload it cannot decode gets one line with a request id (the details only in its log).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnProcess, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(180_000);

const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const TOKEN = 'codec-token-0123456789abcdef';
const MB = 1024 * 1024;
const codec = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'codec-server', ...args], {
    cwd: projectRoot,
    env: {
      ...process.env,
      COUNTERSIGN_ENCRYPTION_KEYS: KEYS,
      COUNTERSIGN_PAYLOAD_STORAGE: 'off',
      COUNTERSIGN_CODEC_TOKEN: '',
      NO_COLOR: '1',
      ...extraEnv,
    },
  });
/** Resident and peak resident memory of a process, in bytes. */
const memory = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
};

const children: Spawned[] = [];
afterAll(async () => {
  for (const s of children) s.kill('SIGKILL');
  await Promise.all(children.map((s) => s.exited));
});

async function started(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ url: string; s: Spawned }> {
  const port = await freePort();
  const s = codec(['--port', String(port), ...args], extraEnv);
  children.push(s);
  await s.waitFor(/codec server at/);
  return { url: `http://127.0.0.1:${port}`, s };
}

const payloads = JSON.stringify({
  payloads: [
    {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from('"hi"').toString('base64'),
    },
  ],
});
/** A body of `mb` MiB sent in 1 MiB chunks, without content-length (chunked transfer encoding). */
const streamed = (mb: number) => {
  const chunk = new Uint8Array(MB).fill(0x78);
  let sent = 0;
  return new ReadableStream<Uint8Array>({ pull: (c) => (sent++ < mb ? c.enqueue(chunk) : c.close()) });
};

test('oversized bodies, declared or streamed, get 413 and the memory stays flat; the token is required', async () => {
  const { url, s } = await started([], { COUNTERSIGN_CODEC_TOKEN: TOKEN });
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const encoded = await fetch(`${url}/encode`, { method: 'POST', headers: auth, body: payloads });
  expect(encoded.status).toBe(200);
  const encodedBody = JSON.stringify(await encoded.json());

  const before = await memory(s.child.pid!);
  const declared = 'x'.repeat(64 * MB); // fetch sends content-length: 64 MiB
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${url}/decode`, { method: 'POST', headers: auth, body: declared });
    expect([res.status, res.headers.get('connection'), await res.json()]).toEqual([
      413,
      'close',
      { error: 'request body larger than 8388608 bytes' },
    ]);
    const chunked = await fetch(`${url}/decode`, { method: 'POST', headers: auth, body: streamed(64), duplex: 'half' });
    expect([chunked.status, await chunked.json()]).toEqual([413, { error: 'request body larger than 8388608 bytes' }]);
  }
  const after = await memory(s.child.pid!);
  // Nothing kept: 6 bodies of 64 MiB were sent, and keeping even two would add 128 MiB. (Below that, what the
  // allocator has not yet returned depends on the machine's load: 20–63 MiB seen.)
  expect(after.rss - before.rss).toBeLessThan(128 * MB);
  // Holding one body whole would take 128 MiB (its chunks and their concatenation); 6 of them were sent.
  expect(after.peak - before.rss).toBeLessThan(100 * MB);

  const decoded = await fetch(`${url}/decode`, { method: 'POST', headers: auth, body: encodedBody });
  expect(decoded.status).toBe(200);
  expect(
    Buffer.from(
      ((await decoded.json()) as { payloads: Array<{ data: string }> }).payloads[0]!.data,
      'base64',
    ).toString(),
  ).toBe('"hi"');
  expect((await fetch(`${url}/decode`, { method: 'POST', body: encodedBody })).status).toBe(401);
  expect(
    (
      await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}X` },
        body: encodedBody,
      })
    ).status,
  ).toBe(401);
  expect(
    (await fetch(`${url}/decode`, { method: 'POST', headers: { authorization: TOKEN }, body: encodedBody })).status,
  ).toBe(401);
}, 240_000);

test('--max-body sets the limit', async () => {
  const { url } = await started(['--max-body', '1024']);
  const over = await fetch(`${url}/encode`, { method: 'POST', body: 'x'.repeat(1025) });
  expect([over.status, await over.json()]).toEqual([413, { error: 'request body larger than 1024 bytes' }]);
  expect((await fetch(`${url}/encode`, { method: 'POST', body: payloads })).status).toBe(200);
});

test('CORS: a listed origin is reflected with credentials, a wildcard gets none, another origin gets nothing', async () => {
  const listed = await started(['--origin', 'http://ui.example:8233']);
  const ok = await fetch(`${listed.url}/encode`, {
    method: 'POST',
    headers: { origin: 'http://ui.example:8233' },
    body: payloads,
  });
  expect(ok.headers.get('access-control-allow-origin')).toBe('http://ui.example:8233');
  expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
  expect(ok.headers.get('vary')).toBe('origin');
  const other = await fetch(`${listed.url}/encode`, {
    method: 'POST',
    headers: { origin: 'http://evil.example' },
    body: payloads,
  });
  expect([...other.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);

  const wildcard = await started(['--origin', '*']);
  const any = await fetch(`${wildcard.url}/encode`, {
    method: 'POST',
    headers: { origin: 'http://evil.example' },
    body: payloads,
  });
  expect(any.status).toBe(200);
  expect(any.headers.get('access-control-allow-origin')).toBe('*');
  expect(any.headers.get('access-control-allow-credentials')).toBeNull();
  const preflight = await fetch(`${wildcard.url}/decode`, {
    method: 'OPTIONS',
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  expect([
    preflight.status,
    preflight.headers.get('access-control-allow-origin'),
    preflight.headers.get('access-control-allow-credentials'),
  ]).toEqual([204, '*', null]);
});

test('no start on a non-loopback address without a token; with one it starts', async () => {
  const open = codec(['--host', '0.0.0.0', '--port', String(await freePort())]);
  children.push(open);
  expect(await open.exited).toBe(1);
  expect(open.output().trim()).toBe(
    'countersign: the codec server will not listen on 0.0.0.0 without authentication it can verify: set COUNTERSIGN_CODEC_TOKEN, or bind to 127.0.0.1',
  );
  const guarded = await started(['--host', '0.0.0.0'], { COUNTERSIGN_CODEC_TOKEN: TOKEN });
  expect(guarded.s.output()).toContain('bearer token required');
  expect((await fetch(`${guarded.url}/encode`, { method: 'POST', body: payloads })).status).toBe(401); // reached on loopback
  guarded.s.kill('SIGKILL'); // listening on every interface: no longer than needed
  await guarded.s.exited;
});

test('a reference it cannot resolve gets one line with a request id; the payload directory is only in its log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codec-store-'));
  const { url, s } = await started([], { COUNTERSIGN_PAYLOAD_STORAGE: 'file', COUNTERSIGN_PAYLOAD_DIR: dir });
  const key = 'ab'.repeat(32); // a well-formed key the store does not hold
  const reference = {
    metadata: {
      encoding: Buffer.from('json/protobuf').toString('base64'),
      messageType: Buffer.from('temporal.api.sdk.v1.ExternalStorageReference').toString('base64'),
    },
    data: Buffer.from(JSON.stringify({ driverName: 'file', claimData: { key } })).toString('base64'),
  };
  const res = await fetch(`${url}/decode`, { method: 'POST', body: JSON.stringify({ payloads: [reference] }) });
  const body = await res.text();
  expect(res.status).toBe(400);
  const { error } = JSON.parse(body) as { error: string };
  expect(error).toMatch(/^the payloads could not be decoded \(request [0-9a-f]{12}\)$/);
  expect(body).not.toContain(dir);
  expect(body).not.toContain(key);
  const requestId = /request ([0-9a-f]{12})/.exec(error)![1]!;
  // The log line under that id says what went wrong and where.
  const logged = await eventuallyLine(s, requestId);
  expect(logged).toMatchObject({ level: 50, reqId: requestId, msg: 'payloads could not be decoded' });
  expect(logged.err.message).toContain(`payload ${key} is not in ${dir}`);
  // The user's own mistakes keep their words.
  const notJson = await fetch(`${url}/decode`, { method: 'POST', body: 'nope' });
  expect([notJson.status, await notJson.json()]).toEqual([
    400,
    { error: 'body must be JSON: {"payloads": [{"metadata": {...}, "data": "base64"}]}' },
  ]);
});

/** The codec server's JSON log line for a request id (it may reach the pipe just after the answer). */
async function eventuallyLine(
  s: Spawned,
  requestId: string,
): Promise<{ level: number; reqId: string; msg: string; err: { message: string } }> {
  await s.waitFor(new RegExp(`"reqId":"${requestId}"`), 10_000);
  const line = s
    .output()
    .split('\n')
    .find((l) => l.includes(`"reqId":"${requestId}"`))!;
  return JSON.parse(line) as { level: number; reqId: string; msg: string; err: { message: string } };
}
