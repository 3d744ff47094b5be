// `countersign serve` as an operator runs it: a child process. Oversized bodies get 413 while its memory stays flat;
// it refuses to listen beyond loopback without an identity source; without any identity source it does not start.
import { join } from 'node:path';
import { freePort, spawnProcess, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(180_000);

const TOKEN = 'ops-token-0123456789abcdef';
const env = () => ({ ...process.env, TEMPORAL_ADDRESS: process.env.COUNTERSIGN_TEST_ADDRESS, TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml', NO_COLOR: '1', COUNTERSIGN_SERVE_TOKENS: `ops:${TOKEN}` });
const serve = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'serve', ...args], { cwd: projectRoot, env: { ...env(), ...extraEnv } });
const rssKb = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${pid}/status`, 'utf8')))![1]);

let running: Spawned[] = [];
afterEach(async () => {
  for (const s of running) s.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
  running = [];
});

test('oversized bodies get 413 and the process memory stays flat', async () => {
  const port = await freePort();
  const s = serve(['--port', String(port)]);
  running.push(s);
  await s.waitFor(/approvals inbox at/);
  const url = `http://127.0.0.1:${port}/api/runs/x/decisions`;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  // Warm up (run x is not on the inbox's queue: 404, as for any unknown run), then measure.
  const warm = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ decisions: [] }) });
  expect([warm.status, await warm.json()]).toEqual([404, { error: 'no run with workflow id x' }]);
  const before = await rssKb(s.child.pid!);
  // Just past the limit: the whole body goes out, and the answer is 413.
  const over = await fetch(url, { method: 'POST', headers, body: `{"decisions":[{"callId":"${'x'.repeat(300_000)}"}]}` });
  expect(over.status).toBe(413);
  expect(await over.json()).toEqual({ error: 'the request is too large' });
  // Far past it: the server answers and closes without reading the rest (the client may see the reset first).
  const chunk = 'x'.repeat(1 << 20);
  for (let i = 0; i < 5; i++) {
    const big = await fetch(url, { method: 'POST', headers, body: `{"decisions":[{"callId":"${chunk.repeat(32)}"}]}`, signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
    if (big) expect(big.status).toBe(413);
  }
  const after = await rssKb(s.child.pid!);
  expect(after - before).toBeLessThan(60 * 1024);
  expect((await fetch(`http://127.0.0.1:${port}/api/pending`, { headers })).status).toBe(200);
});

test('refuses a non-loopback address without an identity source, and any address with none at all', async () => {
  const open = serve(['--host', '0.0.0.0', '--port', String(await freePort())], { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(open);
  expect(await open.exited).toBe(1);
  expect(open.output()).toMatch(/^countersign: countersign serve will not listen on 0\.0\.0\.0 without/m);
  const none = serve(['--port', String(await freePort())], { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(none);
  expect(await none.exited).toBe(1);
  expect(none.output()).toContain('countersign serve needs an identity source');
  const badTokens = serve(['--port', String(await freePort())], { COUNTERSIGN_SERVE_TOKENS: 'ann' });
  running.push(badTokens);
  expect(await badTokens.exited).toBe(1);
  expect(badTokens.output()).toContain('COUNTERSIGN_SERVE_TOKENS: "ann" must be approver:token');
});
