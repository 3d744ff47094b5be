// Which identity sources an inbox trusts where it listens (servers/inbox/inboxIdentity.ts), how a request's identity
// is found (identity.ts), and the one-time sign-in link's tokens (localSignIn.ts): each refusal is one exact line.
import { LocalSignIn } from '../../servers/inbox/localSignIn';
import { identify } from '../../servers/inbox/identity';
import { identitySettingsFor } from '../../servers/inbox/inboxIdentity';

const tokens = [{ approver: 'ops', token: 'ops-token-0123456789abcdef' }];
const VERIFIED = 'COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks';

test('a bare header is trusted on loopback only, whatever else is configured', () => {
  expect(identitySettingsFor('127.0.0.1', { approverHeader: 'X-Forwarded-User' })).toMatchObject({
    approverHeader: 'x-forwarded-user',
    tokens: [],
  });
  for (const host of ['0.0.0.0', '10.0.0.5', '::'])
    expect(() => identitySettingsFor(host, { approverHeader: 'X-Forwarded-User', tokens })).toThrow(
      `countersign serve trusts --approver-header only on loopback (a proxy on this host), not on ${host} where any client could send it: set ${VERIFIED}`,
    );
});

test('beyond loopback only verified identities; with none at all nothing starts', () => {
  expect(() => identitySettingsFor('0.0.0.0', {})).toThrow(
    `countersign serve will not listen on 0.0.0.0 without authentication it can verify: set ${VERIFIED}, or bind to 127.0.0.1`,
  );
  expect(identitySettingsFor('0.0.0.0', { tokens }).tokens).toEqual(tokens);
  expect(() => identitySettingsFor('127.0.0.1', {})).toThrow(
    `countersign serve needs an identity source: ${VERIFIED} (a verifying proxy), or --approver-header (a proxy on this host)`,
  );
});

test('server-held keys never with a bare header, and only with a verified identity', () => {
  const line = `countersign serve --keys-dir signs decisions with approvers' keys, so it needs an identity that cannot be spoofed: set ${VERIFIED}, and no --approver-header`;
  expect(() => identitySettingsFor('127.0.0.1', { approverHeader: 'X-Forwarded-User', keysDir: 'keys' })).toThrow(line);
  expect(() =>
    identitySettingsFor('127.0.0.1', { approverHeader: 'X-Forwarded-User', tokens, keysDir: 'keys' }),
  ).toThrow(line);
  expect(() => identitySettingsFor('127.0.0.1', { keysDir: 'keys' })).toThrow(line);
  expect(identitySettingsFor('127.0.0.1', { tokens, keysDir: 'keys' }).tokens).toEqual(tokens);
  expect(identitySettingsFor('127.0.0.1', { localSignIn: { approver: 'dev' }, keysDir: 'keys' }).signIn?.approver).toBe(
    'dev',
  ); // the link's session is verified, on loopback
});

test('the sign-in link is offered on loopback only', () => {
  expect(identitySettingsFor('::1', { localSignIn: { approver: 'dev' } }).signIn).toBeInstanceOf(LocalSignIn);
  expect(() => identitySettingsFor('0.0.0.0', { localSignIn: { approver: 'dev' }, tokens })).toThrow(
    'countersign serve offers the one-time sign-in link on loopback only, not on 0.0.0.0: bind to 127.0.0.1',
  );
});

test('a sign-in link works once and not after its time; only the sessions it minted stand for the user', () => {
  const signIn = new LocalSignIn('dev');
  const link = signIn.mintLink();
  const session = signIn.redeem(link);
  expect(session).toMatch(/^[\w-]{43}$/);
  expect(signIn.approverOf(session)).toBe('dev');
  expect(signIn.redeem(link)).toBeUndefined();
  expect(signIn.approverOf('made-up')).toBeUndefined();
  expect(signIn.approverOf(undefined)).toBeUndefined();
  const expired = new LocalSignIn('dev', -1);
  expect(expired.redeem(expired.mintLink())).toBeUndefined();
});

test('a signed-in session ends after 12 hours, or the time configured, and is forgotten then', () => {
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const now = () => clock;
  const signIn = new LocalSignIn('dev', undefined, { now });
  const session = signIn.redeem(signIn.mintLink());
  clock += 12 * 3600_000;
  expect(signIn.approverOf(session)).toBe('dev'); // the last moment of a working day
  clock += 1;
  expect(signIn.approverOf(session)).toBeUndefined();
  clock -= 1;
  expect(signIn.approverOf(session)).toBeUndefined(); // forgotten, not merely out of time
  const short = identitySettingsFor('127.0.0.1', {
    localSignIn: { approver: 'dev', sessionTtlMs: 60_000, now },
  }).signIn!;
  const brief = short.redeem(short.mintLink());
  clock += 60_000;
  expect(short.approverOf(brief)).toBe('dev');
  clock += 1;
  expect(short.approverOf(brief)).toBeUndefined();
  expect(short.sessionTtlMs).toBe(60_000);
});

test('identify: a bearer token first, then the session; a bare header only when nothing verified was presented', async () => {
  const signIn = new LocalSignIn('dev');
  const session = signIn.redeem(signIn.mintLink());
  const s = { approverHeader: 'x-forwarded-user', tokens, signIn };
  await expect(
    identify({ authorization: `Bearer ${tokens[0]!.token}`, 'x-forwarded-user': 'mallory' }, session, s),
  ).resolves.toEqual({ approver: 'ops', via: 'token' });
  await expect(
    identify({ authorization: 'Bearer wrong-token-0123456789', 'x-forwarded-user': 'ann' }, undefined, s),
  ).resolves.toBeUndefined();
  await expect(identify({ 'x-forwarded-user': 'mallory' }, session, s)).resolves.toEqual({
    approver: 'dev',
    via: 'session',
  });
  await expect(identify({ 'x-forwarded-user': 'ann' }, 'not-a-session', s)).resolves.toEqual({
    approver: 'ann',
    via: 'header',
  });
  await expect(identify({ 'x-forwarded-user': 'ann\u202e' }, undefined, s)).resolves.toEqual({
    problem:
      'x-forwarded-user: approver name "ann\\u202e" holds a control or invisible formatting character: use plain text',
  }); // the name rule every channel shares: approverChannels.test.ts
});
