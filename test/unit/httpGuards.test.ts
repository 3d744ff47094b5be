// The guards every HTTP surface of the project shares, on their own.
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { BodyTooLarge, checkBind, corsHeaders, readBody, sameSecret } from '../../client/httpGuards';

test('sameSecret: equal only for the same text, whatever the lengths', () => {
  expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
  expect(sameSecret('s3cret-tokeX', 's3cret-token')).toBe(false);
  expect(sameSecret('short', 's3cret-token')).toBe(false);
  expect(sameSecret(undefined, 's3cret-token')).toBe(false);
});

test('corsHeaders: listed origins get credentials, a wildcard never does, others get nothing', () => {
  expect(corsHeaders('http://ui', ['http://ui'])).toEqual({ 'access-control-allow-origin': 'http://ui', 'access-control-allow-credentials': 'true', vary: 'origin' });
  expect(corsHeaders('http://evil', ['*'])).toEqual({ 'access-control-allow-origin': '*' });
  expect(corsHeaders('http://evil', ['http://ui'])).toEqual({});
  expect(corsHeaders(undefined, ['*'])).toEqual({});
});

test('checkBind: loopback always; anything else only with authentication', () => {
  for (const host of ['127.0.0.1', '::1', 'localhost', '127.1.2.3']) expect(() => checkBind(host, false, 'x')).not.toThrow();
  expect(() => checkBind('0.0.0.0', false, 'the codec server')).toThrow('the codec server will not listen on 0.0.0.0 without a token or identity header');
  expect(() => checkBind('0.0.0.0', true, 'x')).not.toThrow();
});

test('readBody: refuses past the limit by declared length or by what streams in', async () => {
  const request = (headers: Record<string, string> = {}) => Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
  const small = request();
  const read = readBody(small, 10);
  small.end('hello');
  await expect(read).resolves.toEqual(Buffer.from('hello'));
  await expect(readBody(request({ 'content-length': '11' }), 10)).rejects.toBeInstanceOf(BodyTooLarge);
  const streamed = request();
  const reading = readBody(streamed, 10);
  streamed.write('0123456789ab');
  await expect(reading).rejects.toThrow('request body larger than 10 bytes');
});
