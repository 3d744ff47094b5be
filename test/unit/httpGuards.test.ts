// The guards every HTTP surface of the project shares, on their own.
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import {
  BodyTooLarge,
  DEFAULT_BODY_LIMIT,
  checkBind,
  corsHeaders,
  isLoopback,
  readBody,
} from '../../servers/httpGuards';
import { sameSecret } from '../../links/sameSecret';

test('sameSecret: equal only for the same text, whatever the lengths', () => {
  expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
  expect(sameSecret('s3cret-tokeX', 's3cret-token')).toBe(false);
  expect(sameSecret('short', 's3cret-token')).toBe(false);
  expect(sameSecret('s3cret-token-and-more', 's3cret-token')).toBe(false);
  expect(sameSecret('', 's3cret-token')).toBe(false);
  expect(sameSecret(undefined, 's3cret-token')).toBe(false);
});

test('corsHeaders: listed origins get credentials, a wildcard never does, others get nothing', () => {
  expect(corsHeaders('http://ui', ['http://ui'])).toEqual({
    'access-control-allow-origin': 'http://ui',
    'access-control-allow-credentials': 'true',
    vary: 'origin',
  });
  expect(corsHeaders('http://ui', ['*', 'http://ui'])).toEqual({
    'access-control-allow-origin': 'http://ui',
    'access-control-allow-credentials': 'true',
    vary: 'origin',
  });
  expect(corsHeaders('http://evil', ['*'])).toEqual({ 'access-control-allow-origin': '*' });
  expect(corsHeaders('http://evil', ['http://ui'])).toEqual({});
  expect(corsHeaders('http://ui.evil', ['http://ui'])).toEqual({});
  expect(corsHeaders(undefined, ['*'])).toEqual({});
});

test('checkBind: loopback always; anything else only with authentication, in one line', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) {
    expect(isLoopback(host)).toBe(true);
    expect(() => checkBind(host, false, 'x')).not.toThrow();
  }
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'localhost.example.com', 'example.com'])
    expect(isLoopback(host)).toBe(false);
  expect(() =>
    checkBind('0.0.0.0', false, 'the codec server', 'set COUNTERSIGN_CODEC_TOKEN, or bind to 127.0.0.1'),
  ).toThrow(
    /^the codec server will not listen on 0\.0\.0\.0 without authentication it can verify: set COUNTERSIGN_CODEC_TOKEN, or bind to 127\.0\.0\.1$/,
  );
  expect(() => checkBind('::', false, 'x')).toThrow(
    'x will not listen on :: without authentication it can verify: set a token, or bind to 127.0.0.1',
  );
  expect(() => checkBind('0.0.0.0', true, 'x')).not.toThrow();
});

const request = (headers: Record<string, string> = {}) =>
  Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;

test('readBody: the whole body when it fits', async () => {
  const small = request();
  const read = readBody(small, 10);
  small.write('hello');
  small.end('world');
  await expect(read).resolves.toEqual(Buffer.from('helloworld'));
  const empty = request();
  const none = readBody(empty, 10);
  empty.end();
  await expect(none).resolves.toEqual(Buffer.alloc(0));
  expect(DEFAULT_BODY_LIMIT).toBe(8 * 1024 * 1024);
});

test('readBody: refused at once by declared length, or as soon as the streamed bytes pass the limit, and left paused', async () => {
  const declared = request({ 'content-length': '11' });
  await expect(readBody(declared, 10)).rejects.toEqual(new BodyTooLarge(10));
  expect(declared.isPaused()).toBe(true);

  const streamed = request(); // no content-length: chunked
  const reading = readBody(streamed, 10);
  streamed.write('01234');
  streamed.write('56789ab');
  await expect(reading).rejects.toThrow('request body larger than 10 bytes');
  expect(streamed.isPaused()).toBe(true);
  expect(streamed.listenerCount('data')).toBe(0); // nothing more is kept
  expect(((await reading.catch((e: unknown) => e)) as BodyTooLarge).limitBytes).toBe(10);
});

test('readBody: a request closed before its end is an error, not a wait forever', async () => {
  const cut = request();
  const reading = readBody(cut, 10);
  cut.write('01');
  cut.destroy();
  await expect(reading).rejects.toThrow('request closed before its body ended');
});
