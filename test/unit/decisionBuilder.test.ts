// The one decision builder: a person's words checked once (the name rule first, then the contract's schema), refused
// in one line as the caller's own error, signed with a key (the key's approver, a token over the call's arguments or
// the edited ones and its fingerprint), and returned in the contract's form.
import { generateKeyPairSync } from 'node:crypto';
import { buildDecision } from '../../client/approvals/decisionBuilder';
import type { ApproverPrivateKey } from '../../client/signing/decisionSigning';
import { CountersignError, RunStateError } from '../../client/errors';
import { argsDigest, decodeDecisionToken } from '../../core/signing/decisionToken';

const { privateKey } = generateKeyPairSync('ed25519');
const { x, d } = privateKey.export({ format: 'jwk' });
const key: ApproverPrivateKey = { kty: 'OKP', crv: 'Ed25519', x: x!, d: d!, kid: 'ann' };
const call = { arguments: '{"to":"bob@example.com"}', fingerprint: 'inbox:v7' };

test('words come back as the contract has them: checked, nothing added', () => {
  expect(buildDecision({ callId: 'c1', decision: 'approve', approver: 'bob', always: true })).toEqual({
    callId: 'c1',
    decision: 'approve',
    always: true,
    approver: 'bob',
  });
  expect(buildDecision({ callId: 'c2', decision: 'extend', by: '4h' })).toEqual({
    callId: 'c2',
    decision: 'extend',
    by: '4h',
  });
});

test("a refusal is one line, as the caller's error; the name rule speaks before the schema", () => {
  const refused = (words: Parameters<typeof buildDecision>[0], refuse?: (m: string) => Error) => {
    try {
      buildDecision(words, refuse ? { refuse } : {});
    } catch (err) {
      return err as Error;
    }
    throw new Error('not refused');
  };
  const long = refused({ callId: 'c1', decision: 'approve', approver: 'x'.repeat(201) });
  expect(long).toBeInstanceOf(CountersignError);
  expect(long.message).toBe('an approver name is at most 200 characters (this one has 201)');
  const asState = refused({ callId: 'c1', decision: 'input' }, (m) => new RunStateError(m));
  expect(asState).toBeInstanceOf(RunStateError);
  expect(asState.message).toBe('invalid decide request: values: an "input" decision carries values, and only it does');
  expect(refused({ callId: 'c1', decision: 'extend', by: 'soon' }).message).toBe(
    'invalid decide request: by: must be a duration such as "30s", "15m", "24h" or "7d"',
  );
});

test("signed: the approver is the key's, the token binds this run, this call, its arguments and fingerprint", () => {
  const signed = buildDecision(
    { callId: 'c1', decision: 'approve', approver: 'someone else' },
    { sign: { key, workflowId: 'run-1', call } },
  );
  expect(signed.approver).toBe('ann');
  const decoded = decodeDecisionToken(signed.token!);
  expect('claims' in decoded && decoded.claims).toMatchObject({
    sub: 'ann',
    wf: 'run-1',
    call: 'c1',
    decision: 'approve',
    args: argsDigest(call.arguments),
    fp: argsDigest(call.fingerprint),
  });
  const edited = buildDecision(
    { callId: 'c1', decision: 'approve', editedArguments: { to: 'eve@example.com' } },
    { sign: { key, workflowId: 'run-1', call } },
  );
  const editedClaims = decodeDecisionToken(edited.token!);
  expect('claims' in editedClaims && editedClaims.claims.args).toBe(argsDigest('{"to":"eve@example.com"}'));
});

test('only a yes or no is signed', () => {
  expect(() =>
    buildDecision({ callId: 'c1', decision: 'extend', by: '1h' }, { sign: { key, workflowId: 'run-1', call } }),
  ).toThrow('only an approve or reject decision is signed, not "extend": send it without a key');
});
