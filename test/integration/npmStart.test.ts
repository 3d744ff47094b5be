// `npm start` end to end: it launches a dev server with SQLite persistence and the Web UI, the scripted model, the
// worker and the approvals inbox on loopback; a run started by a client completes; the banner's one-time link signs
// Chromium in and shows the waiting call; Ctrl-C stops it all; a second start finds the earlier run. However it ends
// (closed terminal, closed stdout, SIGKILL), the dev server it started must not stay behind.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { PendingApproval, RunResult, RunSnapshot } from '../../contract/runViews';
import { launchChromium } from '../support/chromium';
import { freePort, spawnTs, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine
const afterCleanup: Array<() => void> = [];
afterAll(() => afterCleanup.forEach((f) => f()));

function startEnv(dir: string, port: number, uiPort: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    COUNTERSIGN_DEV_ADDRESS: `127.0.0.1:${port}`,
    COUNTERSIGN_UI_PORT: String(uiPort),
    COUNTERSIGN_DEV_DB: join(dir, 'dev.db'),
    COUNTERSIGN_DEMO_OUTBOX: join(dir, 'outbox.jsonl'),
    TEMPORAL_CONFIG_FILE: join(dir, 'none.toml'),
    COUNTERSIGN_INBOX_PORT: '0',
  };
  for (const k of ['TEMPORAL_ADDRESS', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'COUNTERSIGN_TEST_ADDRESS']) delete env[k];
  return env;
}

/** Live processes whose command line or environment names `dir`: everything a start with startEnv(dir) spawned. */
function processesOf(dir: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(dir) || readFileSync(`/proc/${pid}/environ`, 'utf8').includes(dir))
        found.push({ pid: Number(pid), cmdline });
    } catch {
      /* exited meanwhile, or not ours */
    }
  }
  return found;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    if (await check()) return true;
  }
  return check();
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000}s`)), ms)),
  );
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A running `npm start` in a fresh temp dir, its dev server's pid, and the ports; leftovers are killed after all. */
async function startRunning(
  attempt = 1,
): Promise<{ run: Spawned; dir: string; port: number; uiPort: number; serverPid: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const run = spawnTs('devtools/start.ts', [], startEnv(dir, port, uiPort));
  afterCleanup.push(() =>
    processesOf(dir).forEach(({ pid }) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }),
  );
  try {
    await run.waitFor(/Countersign worker is running/);
  } catch (err) {
    // A free port found by binding and closing can be taken again before the dev server binds it (other tests run
    // servers and relays on ephemeral ports): that is the machine, not npm start; try other ports.
    if (attempt < 3 && /address already in use/.test(run.output())) return startRunning(attempt + 1);
    throw err;
  }
  const server = processesOf(dir).find((p) => /(^|\/)temporal server start-dev /.test(p.cmdline));
  expect(server).toBeDefined();
  return { run, dir, port, uiPort, serverPid: server!.pid };
}

/** Nothing of the start remains: no process of it (dev server included), both ports free. */
async function expectAllGone(
  dir: string,
  serverPid: number,
  port: number,
  uiPort: number,
  timeoutMs: number,
): Promise<void> {
  const gone = await eventually(() => processesOf(dir).length === 0, timeoutMs);
  expect(gone ? [] : processesOf(dir)).toEqual([]);
  expect(processesOf(dir).some((p) => p.pid === serverPid)).toBe(false);
  expect(await canListen(port)).toBe(true);
  expect(await canListen(uiPort)).toBe(true);
}

test('npm start brings up server, UI and worker; state survives a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const env = startEnv(dir, port, uiPort);

  const first = spawnTs('devtools/start.ts', [], { ...env, COUNTERSIGN_AGENTS_MODULE: 'test/support/ownAgents.ts' });
  afterCleanup.push(() => first.kill('SIGKILL'));
  await first.waitFor(/Countersign worker is running/);
  expect(first.output()).toContain('scripted demo model — set OPENAI_API_KEY for a real model');
  expect(first.output()).toContain('Agents: email-assistant, weather-assistant, greeter.'); // the demo agents and COUNTERSIGN_AGENTS_MODULE's
  expect(first.output()).toMatch(
    /^Approvals ledger: sqlite \/\S+ \(id [0-9a-f]{16}\): the CLI and a service read it /m,
  );
  expect(first.output()).toContain(
    `Runs waiting for people: http://localhost:${uiPort}/namespaces/default/workflows?query=HitlStatus%3D%22AwaitingApproval%22`,
  );
  expect(first.output()).toMatch(
    /^Approvals inbox: http:\/\/127\.0\.0\.1:\d+\/sign-in\/[\w-]{43} \(signs this browser in as \S+; the link works once, within 15 minutes\)$/m,
  );
  const ui = await fetch(`http://localhost:${uiPort}/`);
  expect(ui.status).toBe(200);

  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const client = new Client({ connection });
  const handle = await client.workflow.start('agentRun', {
    taskQueue: 'countersign',
    workflowId: 'start-test-1',
    args: [{ agent: 'weather-assistant', input: "What's the weather in Paris?" }],
  });
  const result = (await handle.result()) as RunResult;
  expect(result.finalOutput).toBe('get_weather: The weather in Paris is sunny');
  await connection.close();

  first.kill('SIGINT');
  expect(await first.exited).toBe(0);
  expect(first.output()).toContain('shutting down');

  const second = spawnTs('devtools/start.ts', [], env);
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

const signInUrlOf = (output: string) =>
  /^Approvals inbox: (http:\/\/127\.0\.0\.1:\d+)(\/sign-in\/[\w-]+) /m.exec(output)!;

test('the banner’s sign-in link opens the inbox in Chromium as the local user, once; the waiting call is there', async () => {
  const { run, port } = await startRunning();
  const [, base, path] = signInUrlOf(run.output());
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const browser = await launchChromium();
  try {
    // Before the link: nothing to see.
    const anonymous = await fetch(`${base}/`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain(
      'Not signed in: open the one-time sign-in link npm start printed (start it again for a new one).',
    );
    const handle = await new Client({ connection }).workflow.start('agentRun', {
      taskQueue: 'countersign',
      workflowId: 'start-signin-1',
      args: [{ agent: 'email-assistant', input: 'Send the report to alice and delete the draft record DR-42' }],
    });
    let pending: PendingApproval[] = [];
    await eventually(
      async () => (pending = await handle.query<PendingApproval[]>('pendingApprovals')).length > 0,
      90_000,
    );
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.goto(`${base}${path}`);
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.locator('header .who').textContent()).resolves.toBe(`signed in as ${userInfo().username}`);
    const card = page.locator(`article#call-${pending[0]!.callId}`);
    await expect(card.locator('h2').textContent()).resolves.toContain(pending[0]!.toolName);
    mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
    await page.screenshot({ path: join(projectRoot, 'test/artifacts/inbox-signin.png'), fullPage: true });
    // The session decides like any signed-in approver (its form's CSRF token is bound to it).
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText(`Decided: approved ${pending[0]!.toolName} (call ${pending[0]!.callId})`).waitFor();
    expect((await handle.query<RunSnapshot>('runState')).audit).toContainEqual(
      expect.objectContaining({ callId: pending[0]!.callId, decision: 'approved', approver: userInfo().username }),
    );
    // The link worked once: a second browser gets nothing from it.
    const again = await (await browser.newContext()).newPage();
    const second = await again.goto(`${base}${path}`);
    expect(second?.status()).toBe(401);
    await expect(again.locator('p.message').textContent()).resolves.toBe(
      'It was used already or has expired: stop npm start and start it again for a new one.',
    );
    expect((await again.goto(`${base}/`))?.status()).toBe(401);
  } finally {
    await browser.close();
    await connection.close();
    run.kill('SIGINT');
    await within(run.exited, 60_000, 'exiting after SIGINT');
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
    const run = spawnTs('devtools/start.ts', [], startEnv(dir, port, await freePort()));
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(
      `countersign: port ${port} is taken by something that is not a Temporal server; stop it, or set TEMPORAL_ADDRESS to your Temporal server`,
    );
    expect(squatter.listening).toBe(true);
  } finally {
    squatter.close();
  }
});

test('an unreachable TEMPORAL_ADDRESS is one clear line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const env = {
    ...startEnv(dir, await freePort(), await freePort()),
    TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
  };
  const run = spawnTs('devtools/start.ts', [], env);
  expect(await run.exited).toBe(1);
  expect(run.output()).toMatch(/^countersign: cannot reach Temporal at 127\.0\.0\.1:\d+ .*set TEMPORAL_ADDRESS/m);
  expect(run.output().trim().split('\n')).toHaveLength(1);
});

test('a namespace the server does not have is one clear line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-start-'));
  const env = {
    ...startEnv(dir, await freePort(), await freePort()),
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_NAMESPACE: 'no-such-namespace',
  };
  const run = spawnTs('devtools/start.ts', [], env);
  expect(await run.exited).toBe(1);
  expect(run.output().trim()).toMatch(
    /^countersign: namespace "no-such-namespace" is not usable at \S+ \(.*\); set TEMPORAL_NAMESPACE to an existing namespace$/,
  );
});

test('closing the terminal (SIGHUP to the whole process group) stops worker, model and dev server', async () => {
  const { run, dir, port, uiPort, serverPid } = await startRunning();
  run.kill('SIGHUP'); // the dev server has a session of its own: only we can stop it
  await within(run.exited, 60_000, 'exiting after SIGHUP'); // tsx itself dies of SIGHUP; our process drains on
  await expectAllGone(dir, serverPid, port, uiPort, 60_000);
  expect(run.output()).toContain('shutting down'); // stopped by its handler, not killed by the signal
});

test('a closed stdout (`npm start | tee log`, then Ctrl-C) does not crash the shutdown', async () => {
  const { run, dir, port, uiPort, serverPid } = await startRunning();
  run.child.stdout!.destroy(); // as when tee dies: "shutting down..." then meets EPIPE
  run.kill('SIGINT');
  expect(await within(run.exited, 60_000, 'exiting after SIGINT')).toBe(0);
  await expectAllGone(dir, serverPid, port, uiPort, 5_000); // stopped before we exited
  expect(run.output()).not.toMatch(/EPIPE|Error/);
});

test('SIGKILL leaves no dev server behind: its watchdog stops it when we are gone', async () => {
  const { run, dir, port, uiPort, serverPid } = await startRunning();
  run.kill('SIGKILL');
  await within(run.exited, 10_000, 'dying of SIGKILL');
  await expectAllGone(dir, serverPid, port, uiPort, 30_000);
});
