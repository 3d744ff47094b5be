// `npm start` end to end: it launches a dev server with SQLite persistence and the Web UI, the scripted model and
// the worker; a run started by a client completes; Ctrl-C stops it all; a second start finds the earlier run.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RunResult } from '../../workflows/messages';
import { freePort, spawnTs } from '../support/processes';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine
const afterCleanup: Array<() => void> = [];
afterAll(() => afterCleanup.forEach((f) => f()));

function startEnv(dir: string, port: number, uiPort: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, COUNTERSIGN_DEV_ADDRESS: `127.0.0.1:${port}`, COUNTERSIGN_UI_PORT: String(uiPort), COUNTERSIGN_DEV_DB: join(dir, 'dev.db'), COUNTERSIGN_DEMO_OUTBOX: join(dir, 'outbox.jsonl'), TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') };
  for (const k of ['TEMPORAL_ADDRESS', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'COUNTERSIGN_TEST_ADDRESS']) delete env[k];
  return env;
}

test('npm start brings up server, UI and worker; state survives a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const env = startEnv(dir, port, uiPort);

  const first = spawnTs('worker/start.ts', [], env);
  afterCleanup.push(() => first.kill('SIGKILL'));
  await first.waitFor(/Countersign worker is running/);
  expect(first.output()).toContain('scripted demo model — set OPENAI_API_KEY for a real model');
  expect(first.output()).toContain(`http://localhost:${uiPort}`);
  const ui = await fetch(`http://localhost:${uiPort}/`);
  expect(ui.status).toBe(200);

  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const client = new Client({ connection });
  const handle = await client.workflow.start('agentRun', { taskQueue: 'countersign', workflowId: 'start-test-1', args: [{ agent: 'weather-assistant', input: "What's the weather in Paris?" }] });
  const result = (await handle.result()) as RunResult;
  expect(result.finalOutput).toBe('get_weather: The weather in Paris is sunny');
  await connection.close();

  first.kill('SIGINT');
  expect(await first.exited).toBe(0);
  expect(first.output()).toContain('shutting down');

  const second = spawnTs('worker/start.ts', [], env);
  try {
    await second.waitFor(/Countersign worker is running/);
    const c2 = await Connection.connect({ address: `127.0.0.1:${port}` });
    const desc = await new Client({ connection: c2 }).workflow.getHandle('start-test-1').describe();
    expect(desc.status.name).toBe('COMPLETED');
    await c2.close();
  } finally {
    second.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }
});

test('a port held by something that is not Temporal is reported, and left alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const squatter: Server = createServer((s) => {
    s.on('error', () => undefined); // the probe hangs up abruptly
    s.end('HTTP/1.1 200 OK\r\n\r\nnot temporal');
  });
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', () => r()));
  const port = (squatter.address() as { port: number }).port;
  try {
    const run = spawnTs('worker/start.ts', [], startEnv(dir, port, await freePort()));
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(`countersign: port ${port} is taken by something that is not a Temporal server; stop it, or set TEMPORAL_ADDRESS to your Temporal server`);
    expect(squatter.listening).toBe(true);
  } finally {
    squatter.close();
  }
});

test('an unreachable TEMPORAL_ADDRESS is one clear line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const env = { ...startEnv(dir, await freePort(), await freePort()), TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
  const run = spawnTs('worker/start.ts', [], env);
  expect(await run.exited).toBe(1);
  expect(run.output()).toMatch(/^countersign: cannot reach Temporal at 127\.0\.0\.1:\d+ .*set TEMPORAL_ADDRESS/m);
  expect(run.output().trim().split('\n')).toHaveLength(1);
});

test('a namespace the server does not have is one clear line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const env = { ...startEnv(dir, await freePort(), await freePort()), TEMPORAL_ADDRESS: process.env.COUNTERSIGN_TEST_ADDRESS, TEMPORAL_NAMESPACE: 'no-such-namespace' };
  const run = spawnTs('worker/start.ts', [], env);
  expect(await run.exited).toBe(1);
  expect(run.output().trim()).toMatch(/^countersign: namespace "no-such-namespace" is not usable at \S+ \(.*\); set TEMPORAL_NAMESPACE to an existing namespace$/);
});
