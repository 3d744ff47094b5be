// `countersign serve` as an operator runs it: a child process. Oversized bodies get 413 while its memory stays flat;
// it refuses to listen beyond loopback without a verified identity source (a bare header is not one); without any
// identity source on loopback it is npm start's inbox (a one-time sign-in link) for the queue it is given; a spoofable header never sits beside server-held keys; a verifying proxy's
// signed assertions (a JWKS file made here with jose) are checked on every request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CryptoKey, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { freePort, spawnProcess, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { cliEnv } from '../support/countersignCli';
import { localApprover } from '../../servers/inbox/localSignIn';

jest.setTimeout(180_000);

const TOKEN = 'ops-token-0123456789abcdef';
const env = () => cliEnv({ COUNTERSIGN_SERVE_TOKENS: `ops:${TOKEN}` });
const serve = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'serve', ...args], {
    cwd: projectRoot,
    env: { ...env(), ...extraEnv },
  });
const rssKb = async (pid: number) =>
  Number(
    /VmRSS:\s+(\d+)/.exec(
      await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${pid}/status`, 'utf8')),
    )![1],
  );

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
  const over = await fetch(url, {
    method: 'POST',
    headers,
    body: `{"decisions":[{"callId":"${'x'.repeat(300_000)}"}]}`,
  });
  expect(over.status).toBe(413);
  expect(await over.json()).toEqual({ error: 'the request is too large' });
  // Far past it: the server answers and closes without reading the rest (the client may see the reset first).
  const chunk = 'x'.repeat(1 << 20);
  for (let i = 0; i < 5; i++) {
    const big = await fetch(url, {
      method: 'POST',
      headers,
      body: `{"decisions":[{"callId":"${chunk.repeat(32)}"}]}`,
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    if (big) expect(big.status).toBe(413);
  }
  const after = await rssKb(s.child.pid!);
  expect(after - before).toBeLessThan(60 * 1024);
  expect((await fetch(`http://127.0.0.1:${port}/api/pending`, { headers })).status).toBe(200);
});

test('refuses a non-loopback address without an identity source it can verify', async () => {
  const open = serve(['--host', '0.0.0.0', '--port', String(await freePort())], { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(open);
  expect(await open.exited).toBe(1);
  expect(open.output().trim()).toBe(
    'countersign: countersign serve will not listen on 0.0.0.0 without authentication it can verify: set COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks, or bind to 127.0.0.1',
  );
  const headerOnly = serve(
    ['--host', '0.0.0.0', '--port', String(await freePort()), '--approver-header', 'X-Forwarded-User'],
    { COUNTERSIGN_SERVE_TOKENS: '' },
  );
  running.push(headerOnly);
  expect(await headerOnly.exited).toBe(1);
  expect(headerOnly.output().trim()).toBe(
    'countersign: countersign serve trusts --approver-header only on loopback (a proxy on this host), not on 0.0.0.0 where any client could send it: set COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks',
  );
  const badTokens = serve(['--port', String(await freePort())], { COUNTERSIGN_SERVE_TOKENS: 'ann' });
  running.push(badTokens);
  expect(await badTokens.exited).toBe(1);
  expect(badTokens.output()).toContain('COUNTERSIGN_SERVE_TOKENS: "ann" must be approver:token');
});

test("with no identity source on loopback it is npm start's inbox for another task queue: a one-time sign-in link as the local user, on a free port while 8234 is taken", async () => {
  // Hold 8234 as npm start's inbox would (if something else holds it already, it is taken all the same).
  const holder = createServer();
  await new Promise<void>((resolve) => holder.once('error', () => resolve()).listen(8234, '127.0.0.1', resolve));
  try {
    const s = serve(['--task-queue', 'refunds'], { COUNTERSIGN_SERVE_TOKENS: '' });
    running.push(s);
    await s.waitFor(/approvals inbox at/);
    const [, url, link] =
      /^approvals inbox at (http:\/\/127\.0\.0\.1:\d+) for task queue "refunds" \(identity: a one-time sign-in link as (?:\S+), working once within 15 minutes: (\S+)\)\n/.exec(
        s.output().trim(),
      ) ?? [];
    // The AG-UI endpoint on the next line: no worker serves "refunds", so no agents are named.
    expect(s.output().trim()).toBe(
      `approvals inbox at ${url} for task queue "refunds" (identity: a one-time sign-in link as ${localApprover()}, working once within 15 minutes: ${link})\nAG-UI: ${url}/ag-ui/{agent}`,
    );
    expect(url).not.toBe('http://127.0.0.1:8234');
    const signedIn = await fetch(link!, { redirect: 'manual' });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const pending = await fetch(`${url}/api/pending`, { headers: { cookie } });
    expect(pending.status).toBe(200);
    const again = await fetch(link!, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain(
      'It was used already or has expired: stop countersign serve and start it again for a new one.',
    );
    expect(await (await fetch(`${url}/api/pending`)).json()).toEqual({
      error: 'not signed in: open the one-time sign-in link countersign serve printed (start it again for a new one)',
    });
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('the spoofed-header attack: --approver-header with --keys-dir does not start, with or without bearer tokens; nor --keys-dir without identity, nor --approver-jwks without its header', async () => {
  const keys = mkdtempSync(join(tmpdir(), 'countersign-serve-keys-'));
  const line =
    "countersign: countersign serve --keys-dir signs decisions with approvers' keys, so it needs an identity that cannot be spoofed: set COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks, and no --approver-header";
  for (const tokens of ['', `ops:${TOKEN}`]) {
    const s = serve(['--port', String(await freePort()), '--approver-header', 'X-Forwarded-User', '--keys-dir', keys], {
      COUNTERSIGN_SERVE_TOKENS: tokens,
    });
    running.push(s);
    expect(await s.exited).toBe(1);
    expect(s.output().trim()).toBe(line);
  }
  const keysOnly = serve(['--port', String(await freePort()), '--approver-jwks', join(keys, 'jwks.json')], {
    COUNTERSIGN_SERVE_TOKENS: '',
  });
  running.push(keysOnly);
  expect(await keysOnly.exited).toBe(1);
  expect(keysOnly.output().trim()).toBe(
    'countersign: --approver-jwks needs --approver-jwt-header <name>: the header your proxy puts its signed assertion in',
  );
  const noIdentity = serve(['--port', String(await freePort()), '--keys-dir', keys], { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(noIdentity);
  expect(await noIdentity.exited).toBe(1);
  expect(noIdentity.output().trim()).toBe(line);
});

test('identity settings that cannot be forgotten: no audience, no start (unless any is accepted), no issuer, a warning; a look-alike token name, no start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-serve-aud-'));
  const { publicKey } = await generateKeyPair('ES256', { extractable: true });
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'p1' }] }));
  const jwt = ['--approver-jwt-header', 'Cf-Access-Jwt-Assertion', '--approver-jwks', join(dir, 'jwks.json')];
  const noAudience = serve(['--port', String(await freePort()), ...jwt], { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(noAudience);
  expect(await noAudience.exited).toBe(1);
  expect(noAudience.output().trim()).toBe(
    "countersign: --approver-jwks needs --approver-audience <aud>: your identity provider signs tokens for every app behind it, and without an audience one issued for another app would sign in here (Cloudflare Access: the app's AUD tag; IAP: /projects/…/backendServices/…); or give --approver-audience-any to accept any",
  );
  const anyAudience = serve(['--port', String(await freePort()), ...jwt, '--approver-audience-any'], {
    COUNTERSIGN_SERVE_TOKENS: '',
  });
  running.push(anyAudience);
  await anyAudience.waitFor(/approvals inbox at/);
  // No issuer: it starts, and says once what that leaves open.
  expect(anyAudience.output()).toContain(
    'countersign: warning: no --approver-issuer: assertions from any issuer the key set verifies sign in here; pass --approver-issuer <iss>',
  );
  const lookAlike = serve(['--port', String(await freePort())], {
    COUNTERSIGN_SERVE_TOKENS: `ann:${TOKEN},\u0430nn:${TOKEN}x`,
  });
  running.push(lookAlike);
  expect(await lookAlike.exited).toBe(1);
  expect(lookAlike.output().trim()).toBe(
    'countersign: COUNTERSIGN_SERVE_TOKENS: approver name "\u0430nn" (\\u0430nn) could pass for "ann", another approver\'s: use a name that cannot be mistaken for it (or the same spelling, if it is that person)',
  );
});

test('a verifying proxy’s JWT assertions: a good one signs in its email, and expired, wrong audience, wrong issuer, alg none, unknown key and tampered ones get 401', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('ES256', { extractable: true });
  const dir = mkdtempSync(join(tmpdir(), 'countersign-serve-jwks-'));
  writeFileSync(
    join(dir, 'jwks.json'),
    JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'proxy-1', alg: 'ES256' }] }),
  );
  const [AUD, ISS] = ['countersign-inbox', 'https://team.cloudflareaccess.com'];
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--approver-jwt-header',
    'Cf-Access-Jwt-Assertion',
    '--approver-jwks',
    join(dir, 'jwks.json'),
    '--approver-audience',
    AUD,
    '--approver-issuer',
    ISS,
    '--keys-dir',
    dir,
  ];
  const s = serve(args, { COUNTERSIGN_SERVE_TOKENS: '' });
  running.push(s);
  await s.waitFor(/approvals inbox at/);
  expect(s.output()).toContain(
    `approvals inbox at http://127.0.0.1:${port} for task queue "countersign" (identity: signed assertion in Cf-Access-Jwt-Assertion (claim email))`,
  );
  expect(s.output()).not.toContain('warning'); // the issuer is given

  const now = Math.floor(Date.now() / 1000);
  const jwt = (o: { exp?: number; aud?: string; iss?: string; key?: CryptoKey; kid?: string; email?: string } = {}) =>
    new SignJWT({ email: o.email ?? 'ann@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? 'proxy-1' })
      .setExpirationTime(o.exp ?? now + 300)
      .setAudience(o.aud ?? AUD)
      .setIssuer(o.iss ?? ISS)
      .sign(o.key ?? privateKey);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const pending = (assertion: string) =>
    fetch(`http://127.0.0.1:${port}/api/pending`, { headers: { 'cf-access-jwt-assertion': assertion } });
  const good = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'cf-access-jwt-assertion': await jwt() } });
  expect(good.status).toBe(200);
  expect(await good.text()).toContain('signed in as <b>ann@example.com</b>');
  expect((await pending(await jwt())).status).toBe(200);
  const [head, , sig] = (await jwt()).split('.');
  const refusals: Array<[string, string]> = [
    [await jwt({ exp: now - 3600 }), 'it has expired'],
    [await jwt({ aud: 'another-app' }), 'it is for another audience'],
    [await jwt({ iss: 'https://evil.example' }), 'it comes from another issuer'],
    [
      `${b64({ alg: 'none' })}.${b64({ email: 'ann@example.com', aud: AUD, iss: ISS, exp: now + 300 })}.`,
      'its algorithm is not one of ES256, RS256, EdDSA',
    ],
    [await jwt({ key: stranger.privateKey, kid: 'proxy-9' }), 'it is signed by a key the key set does not hold'],
    [
      `${head}.${b64({ email: 'mallory@example.com', aud: AUD, iss: ISS, exp: now + 300 })}.${sig}`,
      'its signature does not verify',
    ],
  ];
  for (const [assertion, why] of refusals) {
    const r = await pending(assertion);
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({
      error: `not signed in: the identity assertion in Cf-Access-Jwt-Assertion was refused: ${why}`,
    });
  }
  // No assertion at all: a bearer-less, header-less request is not signed in either.
  expect((await fetch(`http://127.0.0.1:${port}/api/pending`)).status).toBe(401);
  // AG-UI's routes take the same identity: a verified assertion reads, a tampered one may not even post.
  const agUi = `http://127.0.0.1:${port}/ag-ui/email-assistant`;
  const read = await fetch(`${agUi}/capabilities`, { headers: { 'cf-access-jwt-assertion': await jwt() } });
  expect([read.status, ((await read.json()) as { humanInTheLoop: object }).humanInTheLoop]).toEqual([
    200,
    expect.objectContaining({ interrupts: true }),
  ]);
  const forged = await fetch(agUi, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-access-jwt-assertion': refusals.at(-1)![0] },
    body: JSON.stringify({ threadId: 'jwt-1', runId: 'r', messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
  });
  expect([forged.status, await forged.json()]).toEqual([
    401,
    {
      error:
        'not signed in: the identity assertion in Cf-Access-Jwt-Assertion was refused: its signature does not verify',
    },
  ]);
});
