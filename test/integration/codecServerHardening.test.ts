// `countersign codec-server` as operators run it (a child process): oversized bodies get 413 while its memory stays
// flat, the bearer token is checked, a wildcard origin gets no credentials, and it will not listen beyond loopback
// without a token.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, spawnProcess, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(180_000);

const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const TOKEN = 'codec-token-0123456789abcdef';
const codec = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'codec-server', ...args], {
    cwd: projectRoot,
    env: { ...process.env, COUNTERSIGN_ENCRYPTION_KEYS: KEYS, COUNTERSIGN_PAYLOAD_STORAGE: 'off', NO_COLOR: '1', ...extraEnv },
  });
const rssKb = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);

let running: Spawned[] = [];
afterEach(async () => {
  for (const s of running) s.kill('SIGINT');
  await Promise.all(running.map((s) => s.exited));
  running = [];
});

async function started(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ url: string; s: Spawned }> {
  const port = await freePort();
  const s = codec(['--port', String(port), ...args], extraEnv);
  running.push(s);
  await s.waitFor(/codec server at/);
  return { url: `http://127.0.0.1:${port}`, s };
}

const payloads = JSON.stringify({ payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') }] });

test('oversized bodies get 413 and the memory stays flat; the token is required', async () => {
  const { url, s } = await started([], { COUNTERSIGN_CODEC_TOKEN: TOKEN });
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const encoded = await fetch(`${url}/encode`, { method: 'POST', headers: auth, body: payloads });
  expect(encoded.status).toBe(200);
  const before = await rssKb(s.child.pid!);
  const big = 'x'.repeat(64 << 20);
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${url}/decode`, { method: 'POST', headers: auth, body: big }).catch(() => undefined);
    if (res) expect(res.status).toBe(413);
  }
  const after = await rssKb(s.child.pid!);
  expect(after - before).toBeLessThan(60 * 1024);
  expect((await fetch(`${url}/decode`, { method: 'POST', headers: auth, body: JSON.stringify(await encoded.json()) })).status).toBe(200);
  expect((await fetch(`${url}/decode`, { method: 'POST', body: payloads })).status).toBe(401);
  expect((await fetch(`${url}/decode`, { method: 'POST', headers: { authorization: 'Bearer codec-token-0123456789abcdeX' }, body: payloads })).status).toBe(401);
});

test('CORS: a listed origin is reflected with credentials, a wildcard gets none, another origin gets nothing', async () => {
  const listed = await started(['--origin', 'http://ui.example:8233']);
  const ok = await fetch(`${listed.url}/encode`, { method: 'POST', headers: { origin: 'http://ui.example:8233' }, body: payloads });
  expect(ok.headers.get('access-control-allow-origin')).toBe('http://ui.example:8233');
  expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
  const other = await fetch(`${listed.url}/encode`, { method: 'POST', headers: { origin: 'http://evil.example' }, body: payloads });
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
  const wildcard = await started(['--origin', '*']);
  const any = await fetch(`${wildcard.url}/encode`, { method: 'POST', headers: { origin: 'http://evil.example' }, body: payloads });
  expect(any.headers.get('access-control-allow-origin')).toBe('*');
  expect(any.headers.get('access-control-allow-credentials')).toBeNull();
});

test('no start on a non-loopback address without a token', async () => {
  const open = codec(['--host', '0.0.0.0', '--port', String(await freePort())]);
  running.push(open);
  expect(await open.exited).toBe(1);
  expect(open.output()).toContain('countersign: the codec server will not listen on 0.0.0.0 without a token or identity header: set COUNTERSIGN_CODEC_TOKEN, or bind to 127.0.0.1');
  const guarded = await started(['--host', '0.0.0.0'], { COUNTERSIGN_CODEC_TOKEN: TOKEN });
  expect(guarded.s.output()).toContain('bearer token required');
});
