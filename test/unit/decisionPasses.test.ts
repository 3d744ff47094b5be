// One pass per decision: checkDecision (the one rule for whether a decision may apply) runs once in the update's
// validator and once in a handler — a signal's, the update's, a sub-run's for a decision its parent passed on — and
// the book applies what was checked without checking it again. The spy counts every call of the real rule, from the
// book and from the sub-run route alike; the activities (token signatures, edited arguments) are stand-ins.
import { generateKeyPairSync, sign } from 'node:crypto';
import { AgentRunState } from '../../core/run/agentRunState';
import { DecisionError } from '../../core/approvals/approvalBook';
import * as rules from '../../core/approvals/decisionRules';
import {
  type ArgumentsToValidate,
  type IntakeChecks,
  admitDecisions,
  decisionFromSignal,
  takeDecisions,
} from '../../core/approvals/decisionIntake';
import { argsDigest } from '../../core/signing/decisionToken';
import * as signing from '../../core/signing/signedDecisions';
import { canonicalNames } from '../../contract/approverName';
import type { Decision } from '../../contract/messages';
import { DecisionDesk } from '../../workflows/decisionDesk';
import type { Publisher } from '../../workflows/publisher';
import type { SubRuns } from '../../workflows/subRuns';
import { checkOn, routeDecision } from '../support/decisionChecks';

const T0 = '2026-11-22T10:00:00.000Z';
const ARGS = '{"to":"a@example.com","subject":"s","body":"b"}';
const WF = 'wf-1';

function runWith(...ids: string[]): AgentRunState {
  const s = new AgentRunState({ agent: 'email-assistant', input: 'go' }, T0);
  for (const callId of ids)
    s.book.request(
      {
        callId,
        toolName: 'send_email',
        arguments: ARGS,
        agentName: 'email-assistant',
        requestedAt: T0,
        kind: 'approval' as const,
        rejectionText: 'no',
      },
      T0,
    );
  return s;
}

/** What the workflow lends the intake, with the two activities answered here (`during` runs while they "run"). */
function checksFor(during: () => void = () => {}): IntakeChecks & { activityCalls: number } {
  const checks = {
    activityCalls: 0,
    names: canonicalNames,
    tokenRun: WF,
    nowSeconds: () => Math.floor(Date.now() / 1000),
    verifyTokens: async (tokens: string[]) => {
      checks.activityCalls += 1;
      during();
      return tokens.map(() => ({ ok: true as const }));
    },
    validate: async (_call: unknown, given: ArgumentsToValidate) => {
      checks.activityCalls += 1;
      during();
      const modelArguments = given.arguments ? (JSON.parse(given.arguments) as object) : {};
      return { ok: true as const, arguments: JSON.stringify({ ...modelArguments, ...given.values }) };
    },
  };
  return checks;
}

/** A handler's stage as the desk runs it: the intake's pass, then the book applies the checked batch. */
async function handle(s: AgentRunState, decisions: Decision[], checks: IntakeChecks, via: 'signal' | 'update') {
  const intake = await takeDecisions(s, decisions, checks);
  if ('problem' in intake) return intake;
  return { applied: s.book.decide(intake.local, T0, via), forward: intake.forward };
}

const desk = (s: AgentRunState) =>
  new DecisionDesk(s, { publish() {}, refuse() {} } as unknown as Publisher, {} as SubRuns, () => T0, WF);

function tokenFor(callId: string, decision: 'approve' | 'reject', jti = 'j1'): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'ann', wf: WF, call: callId, decision, args: argsDigest(ARGS), iat: now, exp: now + 600, jti };
  const input = `${enc({ alg: 'EdDSA', kid: 'ann' })}.${enc(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

let checkDecision: jest.SpyInstance;
beforeEach(() => {
  checkDecision = jest.spyOn(rules, 'checkDecision');
});
afterEach(() => checkDecision.mockRestore());

test('the spy sees the rule wherever it runs: in the book and on the sub-run route (control)', () => {
  const s = runWith('c1');
  expect(checkOn(s.book, { callId: 'c1', decision: 'approve' })).toBeUndefined();
  expect(checkDecision).toHaveBeenCalledTimes(1);
  s.childStarted('wf-1/x1', { callId: 'x1', toolName: 'check_identity' });
  s.applyChildReport({
    childWorkflowId: 'wf-1/x1',
    waiting: true,
    pending: [{ callId: 'n1', kind: 'approval', toolName: 'ask', arguments: '{}', agentName: 'id', requestedAt: T0 }],
  });
  expect(routeDecision(s, { callId: 'n1', decision: 'approve' })).toEqual({ to: 'child', subRunWorkflowId: 'wf-1/x1' });
  expect(checkDecision).toHaveBeenCalledTimes(2);
});

test('a plain signal: checked once, applied in the same call', async () => {
  const s = runWith('c1');
  const intake = decisionFromSignal('approve', { callId: 'c1', approver: 'ann' });
  const taken = takeDecisions(s, [(intake as { decision: Decision }).decision], checksFor());
  if (taken instanceof Promise || 'problem' in taken) throw new Error('a plain signal is taken at once');
  expect(s.book.decide(taken.local, T0, 'signal')).toMatchObject([{ callId: 'c1', outcome: 'approved' }]);
  expect(checkDecision).toHaveBeenCalledTimes(1);
});

test('a signal with edited arguments: checked once, before its activity, and applied as checked', async () => {
  const s = runWith('c1');
  const checks = checksFor();
  const edit = {
    callId: 'c1',
    decision: 'approve' as const,
    editedArguments: { to: 'b@example.com', subject: 's', body: 'b' },
  };
  expect(await handle(s, [edit], checks, 'signal')).toMatchObject({ applied: [{ outcome: 'approved' }] });
  expect(checks.activityCalls).toBe(1);
  expect(checkDecision).toHaveBeenCalledTimes(1);
  expect(s.book.call('c1')!.editedArguments).toBe('{"to":"b@example.com","subject":"s","body":"b"}');
});

test.each<[string, (s: AgentRunState) => Decision, number]>([
  ['plain', () => ({ callId: 'c1', decision: 'approve', approver: 'ann' }), 0],
  ['with edited arguments', () => ({ callId: 'c1', decision: 'approve', editedArguments: { to: 'x@example.com' } }), 1],
  ['with a token', () => ({ callId: 'c1', decision: 'approve', token: tokenFor('c1', 'approve') }), 1],
])('the decide update, %s: once in its validator, once in its handler', async (_what, decision, activities) => {
  const s = runWith('c1', 'c2');
  const d = decision(s);
  desk(s).validate({ decisions: [d] });
  expect(checkDecision).toHaveBeenCalledTimes(1);
  const checks = checksFor();
  const taken = await handle(s, [d], checks, 'update');
  expect(taken).toMatchObject({ applied: [{ callId: 'c1', outcome: 'approved' }] });
  expect(checks.activityCalls).toBe(activities);
  expect(checkDecision).toHaveBeenCalledTimes(2);
});

test.each<[string, Decision[], number]>([
  [
    'plain decisions',
    [
      { callId: 'c1', decision: 'approve', approver: 'ann' },
      { callId: 'c2', decision: 'reject' },
    ],
    0,
  ],
  [
    'one decision of two with a token',
    [
      { callId: 'c1', decision: 'approve', token: tokenFor('c1', 'approve') },
      { callId: 'c2', decision: 'reject' },
    ],
    2,
  ],
])('tokens are read only where one came: %s', async (_what, decisions, reads) => {
  const readToken = jest.spyOn(signing, 'readToken');
  try {
    const s = runWith('c1', 'c2');
    desk(s).validate({ decisions });
    expect(await handle(s, decisions, checksFor(), 'update')).toMatchObject({ applied: [{}, {}] });
    expect(readToken).toHaveBeenCalledTimes(reads); // once in the validator, once in the handler, for the token only
  } finally {
    readToken.mockRestore();
  }
});

test("a decision for a sub-run's call: once per stage here, passed on as it came, once in the sub-run", async () => {
  const parent = runWith('c1');
  parent.childStarted('wf-1/x1', { callId: 'x1', toolName: 'help' });
  parent.applyChildReport({
    childWorkflowId: 'wf-1/x1',
    waiting: true,
    pending: [
      {
        callId: 'c9',
        kind: 'approval',
        toolName: 'send_email',
        arguments: ARGS,
        agentName: 'helper',
        requestedAt: T0,
        fingerprint: 'v1',
      },
    ],
  });
  const d: Decision = { callId: 'c9', decision: 'approve', approver: 'ann', reason: 'fine', fingerprint: 'v1' };
  expect(admitDecisions(parent, [d], canonicalNames, checksFor())).toMatchObject({
    forward: [{ subRunWorkflowId: 'wf-1/x1' }],
  });
  const here = await handle(parent, [d], checksFor(), 'update');
  expect(here).toEqual({ applied: [], forward: [{ subRunWorkflowId: 'wf-1/x1', decision: d }] }); // unchanged: no signal rebuilt
  expect(checkDecision).toHaveBeenCalledTimes(2);

  const child = runWith('c9');
  Object.assign(child.book.call('c9')!, { fingerprint: 'v1' }); // as if planned with it (the book hands out read-only views)
  const there = await handle(
    child,
    [(here as { forward: Array<{ decision: Decision }> }).forward[0]!.decision],
    checksFor(),
    'signal',
  );
  expect(there).toMatchObject({ applied: [{ callId: 'c9', outcome: 'approved', approver: 'ann' }] });
  expect(checkDecision).toHaveBeenCalledTimes(3);
});

test('a second check only when the book changed while the activities ran; a stale check never applies', async () => {
  const s = runWith('c1', 'c2');
  const racing = checksFor(() => s.book.decide([{ callId: 'c1', decision: 'reject', approver: 'bob' }], T0, 'signal'));
  const edit: Decision = { callId: 'c1', decision: 'approve', editedArguments: { to: 'x@example.com' } };
  expect(await handle(s, [edit], racing, 'signal')).toEqual({
    problem: 'call c1 (send_email) is already decided: rejected',
  });
  expect(checkDecision).toHaveBeenCalledTimes(3); // the edit's check, the racing decision's own, the edit's again

  const early = takeDecisions(s, [{ callId: 'c2', decision: 'approve' }], checksFor());
  s.book.expire('c2', T0);
  expect(() => s.book.decide((early as { local: rules.CheckedBatch }).local, T0, 'update')).toThrow(DecisionError);
  expect(s.book.call('c2')!.state).toBe('rejected'); // expired, and the stale approval changed nothing
});
