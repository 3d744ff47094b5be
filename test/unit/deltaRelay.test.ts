// The worker's model-delta relay on its own: replay from the start of a turn, early readers, unknown turns, the
// bounded buffer, the token a reader needs, and the settings that configure it.
import { loadConfig } from '../../temporal.config';
import { deltaPath, startDeltaRelay, type DeltaRelay } from '../../activities/model/deltaRelay';

let relay: DeltaRelay;
// lingerMs well above a loaded machine's pauses: the late reader in the first test must still find the ended turn.
beforeAll(async () => (relay = await startDeltaRelay({ lingerMs: 1500, waitMs: 400 })));
afterAll(() => relay.close());

/** Reads a feed to its end: the data events, and whether `event: end` closed it. */
async function read(runId: string, turn: number): Promise<{ status: number; deltas: string[]; ended: boolean }> {
  const res = await fetch(relay.feedUrl(runId, turn));
  const body = await res.text();
  const frames = body.split('\n\n').filter(Boolean);
  const deltas = frames
    .filter((f) => f.startsWith('data: '))
    .map((f) => (JSON.parse(f.slice(6)) as { delta: string; at: string }).delta);
  return { status: res.status, deltas, ended: frames.some((f) => f.startsWith('event: end')) };
}

test('a reader that comes late gets the whole turn from its start, then the end', async () => {
  relay.begin('run/1 ü', 1);
  relay.publish('run/1 ü', 1, 'Hel');
  relay.publish('run/1 ü', 1, 'lo');
  const reading = read('run/1 ü', 1);
  await new Promise((r) => setTimeout(r, 50));
  relay.publish('run/1 ü', 1, '!');
  relay.end('run/1 ü', 1);
  expect(await reading).toEqual({ status: 200, deltas: ['Hel', 'lo', '!'], ended: true });
  expect(await read('run/1 ü', 1)).toEqual({ status: 200, deltas: ['Hel', 'lo', '!'], ended: true }); // after the end, within lingerMs
});

test('an early reader waits for the turn to begin', async () => {
  const reading = read('early', 2);
  await new Promise((r) => setTimeout(r, 100));
  relay.begin('early', 2);
  relay.publish('early', 2, 'x');
  relay.end('early', 2);
  expect(await reading).toEqual({ status: 200, deltas: ['x'], ended: true });
});

test('a turn the relay never had is a 404 after a short wait; an ended turn is dropped after lingerMs', async () => {
  const started = Date.now();
  expect((await read('nobody', 1)).status).toBe(404);
  expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  relay.begin('brief', 1);
  relay.publish('brief', 1, 'gone soon');
  relay.end('brief', 1);
  await new Promise((r) => setTimeout(r, 1600));
  expect((await read('brief', 1)).status).toBe(404);
});

test("a retried turn starts afresh: the failed attempt's deltas are not replayed", async () => {
  relay.begin('retry', 3);
  relay.publish('retry', 3, 'half an ans');
  relay.end('retry', 3);
  relay.begin('retry', 3);
  relay.publish('retry', 3, 'the answer');
  relay.end('retry', 3);
  expect((await read('retry', 3)).deltas).toEqual(['the answer']);
});

test("a reader without the turn's token is refused, whether or not the turn exists; the token is the turn's alone", async () => {
  relay.begin('secret-run', 1);
  relay.publish('secret-run', 1, 'private words');
  const path = `${relay.url}${deltaPath('secret-run', 1)}`;
  const other = new URL(relay.feedUrl('secret-run', 2)).searchParams.get('token')!;
  const refused =
    "refused: a turn's deltas need the token in the URL its run advertises (the model call's heartbeat: describe, or the client library)\n";
  for (const url of [
    path,
    `${path}?token=`,
    `${path}?token=${'A'.repeat(43)}`,
    `${path}?token=${other}`,
    `${relay.url}${deltaPath('nobody', 9)}`,
  ]) {
    const res = await fetch(url);
    expect([res.status, await res.text()]).toEqual([403, refused]);
  }
  expect(new URL(relay.feedUrl('secret-run', 1)).searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  relay.end('secret-run', 1);
  expect(await read('secret-run', 1)).toEqual({ status: 200, deltas: ['private words'], ended: true });
});

test('COUNTERSIGN_DELTA_*: on by default on loopback, any port; off turns it off; bad values are one-line errors', () => {
  const base = { TEMPORAL_CONFIG_FILE: '/nonexistent/countersign-test.toml' };
  expect(loadConfig(base).deltaRelay).toEqual({ host: '127.0.0.1', port: 0 });
  expect(loadConfig({ ...base, COUNTERSIGN_DELTA_RELAY: 'off' }).deltaRelay).toBeUndefined();
  expect(
    loadConfig({
      ...base,
      COUNTERSIGN_DELTA_HOST: '0.0.0.0',
      COUNTERSIGN_DELTA_PORT: '7244',
      COUNTERSIGN_DELTA_PUBLIC_URL: 'http://w1.internal:7244',
    }).deltaRelay,
  ).toEqual({
    host: '0.0.0.0',
    port: 7244,
    publicUrl: 'http://w1.internal:7244',
  });
  expect(() => loadConfig({ ...base, COUNTERSIGN_DELTA_PORT: '70000' })).toThrow(
    'COUNTERSIGN_DELTA_PORT: must be 0 to 65535',
  );
  expect(() => loadConfig({ ...base, COUNTERSIGN_DELTA_RELAY: 'no' })).toThrow(
    'COUNTERSIGN_DELTA_RELAY: must be "on" or "off"',
  );
});

test('a port already taken is a one-line error naming the settings', async () => {
  const port = Number(new URL(relay.url).port);
  await expect(startDeltaRelay({ port })).rejects.toThrow(
    /^the model-delta relay cannot listen on 127\.0\.0\.1:\d+ \(.*EADDRINUSE.*\): set COUNTERSIGN_DELTA_HOST/,
  );
});
