// The one way every predicate is asked (activities/predicateAnswers.ts): an answer it may give comes back; a throw, a
// rejected promise, no answer within the limit, or any other answer is a one-line reason, and a person decides.
import { PersonDecides, askPredicate, sdkBoolean, shown } from '../../activities/predicateAnswers';
import { loadConfig } from '../../temporal.config';
import { workerSettingsOf } from '../../config/workerSettings';

const needsApproval = (limitMs = 1_000) => ({
  what: 'needsApproval',
  accepts: (a: unknown) => typeof a === 'boolean',
  expected: 'a boolean',
  limitMs,
});

test('true and false are answers, sync or async', async () => {
  await expect(askPredicate(needsApproval(), () => true)).resolves.toEqual({ answer: true });
  await expect(askPredicate(needsApproval(), async () => false)).resolves.toEqual({ answer: false });
});

test.each([
  [1, '1'],
  ['yes', "'yes'"],
  ['no', "'no'"],
  [{}, '{}'],
  [null, 'null'],
  [undefined, 'undefined'],
])('%p is not an answer: a person decides, and the reason names it', async (answer, named) => {
  await expect(askPredicate(needsApproval(), () => answer)).resolves.toEqual({
    why: `needsApproval answered ${named}, not a boolean: a person decides`,
  });
});

test('a throw and a rejected promise: a person decides, with the message on one line', async () => {
  const boom = () => {
    throw new Error('db down');
  };
  await expect(askPredicate(needsApproval(), boom)).resolves.toEqual({
    why: 'needsApproval threw: db down: a person decides',
  });
  await expect(askPredicate(needsApproval(), () => Promise.reject(new Error('no\nquota')))).resolves.toEqual({
    why: 'needsApproval threw: no quota: a person decides',
  });
  await expect(askPredicate(needsApproval(), () => Promise.reject('plain'))).resolves.toEqual({
    why: 'needsApproval threw: plain: a person decides',
  });
});

test('no answer within the limit: a person decides, and a late answer changes nothing', async () => {
  let late: (v: boolean) => void = () => undefined;
  const started = Date.now();
  const asked = await askPredicate(needsApproval(50), () => new Promise<boolean>((resolve) => (late = resolve)));
  expect(asked).toEqual({ why: 'needsApproval did not answer within 50ms: a person decides' });
  expect(Date.now() - started).toBeLessThan(1_000);
  late(false);
  const never = await askPredicate(needsApproval(2_000), () => new Promise(() => undefined));
  expect(never).toEqual({ why: 'needsApproval did not answer within 2s: a person decides' });
});

test("an adapter's refusal (PersonDecides) is the reason as it stands; sdkBoolean refuses all but booleans", async () => {
  await expect(askPredicate(needsApproval(), () => sdkBoolean('needsApproval', 'yes'))).resolves.toEqual({
    why: "needsApproval answered 'yes', not a boolean: a person decides",
  });
  expect(sdkBoolean('needsApproval', true)).toBe(true);
  expect(() => sdkBoolean('isEnabled', 0)).toThrow(PersonDecides);
});

test('a reason is one short line whatever the answer', () => {
  expect(shown('a\nlong '.repeat(40))).toMatch(/^'[^\n]{1,60}'$/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expect(shown(cyclic)).toBe('an object that is not JSON');
  expect(shown(() => true)).toBe('a function');
  expect(shown({ approve: 'yes' })).toBe('{"approve":"yes"}');
});

test('the limit is COUNTERSIGN_PREDICATE_TIMEOUT, 10s unless set', () => {
  expect(loadConfig({}).predicateTimeoutMs).toBe(10_000);
  expect(loadConfig({ COUNTERSIGN_PREDICATE_TIMEOUT: '250ms' }).predicateTimeoutMs).toBe(250);
  expect(() => loadConfig({ COUNTERSIGN_PREDICATE_TIMEOUT: 'soon' })).toThrow(/COUNTERSIGN_PREDICATE_TIMEOUT/);
  const model = { baseURL: undefined, model: 'm', api: 'chat' as const, requestTimeoutMs: 1 };
  expect(workerSettingsOf({ model }).predicateTimeoutMs).toBe(10_000);
});
