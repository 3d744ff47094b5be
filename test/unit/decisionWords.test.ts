// The decision's words, once: every verb the wire takes, the outcome each comes to (by a person, by code, by a grant,
// on an uncertain call, counted toward a quorum, forwarded to a sub-run), and the lists the schema and the audit use.
import {
  AUDIT_DECISIONS,
  DECISION_OUTCOMES,
  DECISION_VERBS,
  type DecisionVerb,
  decisionVerbSchema,
  outcomeOf,
  uncertainAnswer,
} from '../../contract/decisionWords';
import { decisionSchema } from '../../contract/messages';

test("the verbs are the wire's, and the schema refuses any other word in one line", () => {
  expect(DECISION_VERBS).toEqual(['approve', 'reject', 'input', 'result', 'extend', 'retry', 'done', 'failed']);
  for (const v of DECISION_VERBS) expect(decisionVerbSchema.safeParse(v).success).toBe(true);
  const refused = decisionSchema.safeParse({ callId: 'c1', decision: 'approved' });
  expect(refused.success).toBe(false);
  expect(refused.error!.issues[0]!.message).toBe(
    'must be "approve", "reject", "input", "result", "extend", "retry", "done" or "failed"',
  );
});

test("a person's verb comes to its outcome", () => {
  const byPerson = Object.fromEntries(DECISION_VERBS.map((v) => [v, outcomeOf(v)]));
  expect(byPerson).toEqual({
    approve: 'approved',
    reject: 'rejected',
    input: 'input_provided',
    result: 'result_provided',
    extend: 'extended',
    retry: 'retry',
    done: 'done',
    failed: 'failed',
  });
  expect(outcomeOf('approve', { by: 'person' })).toBe('approved');
});

test("code decides auto_…, a grant grants, a short quorum counts, a sub-run's call is forwarded", () => {
  expect(outcomeOf('approve', { by: 'code' })).toBe('auto_approved');
  expect(outcomeOf('reject', { by: 'code' })).toBe('auto_rejected');
  expect(outcomeOf('approve', { by: 'grant' })).toBe('granted');
  expect(outcomeOf('approve', { counted: true })).toBe('approval_counted');
  expect(outcomeOf('reject', { counted: true })).toBe('rejected');
  expect(outcomeOf('extend', { counted: true })).toBe('extended');
  for (const v of DECISION_VERBS) expect(outcomeOf(v, { forwarded: true })).toBe('forwarded');
});

test('on an uncertain call: approve is a retry, a result is done or failed by its error, reject stays a rejection', () => {
  const on = (v: DecisionVerb, withError = false) => outcomeOf(v, { uncertain: true, withError });
  expect([on('approve'), on('retry'), on('done'), on('failed'), on('result'), on('result', true)]).toEqual([
    'retry',
    'retry',
    'done',
    'failed',
    'done',
    'failed',
  ]);
  expect(on('reject')).toBe('rejected');
  expect(uncertainAnswer('reject', false)).toBeUndefined();
  expect(uncertainAnswer('input', false)).toBeUndefined();
});

test('every outcome is one the audit records, and each verb comes to one of them', () => {
  for (const o of DECISION_OUTCOMES) expect(AUDIT_DECISIONS).toContain(o);
  for (const v of DECISION_VERBS)
    for (const by of ['person', 'code', 'grant'] as const)
      for (const uncertain of [false, true]) expect(DECISION_OUTCOMES).toContain(outcomeOf(v, { by, uncertain }));
  expect(AUDIT_DECISIONS.filter((d) => !(DECISION_OUTCOMES as readonly string[]).includes(d))).toEqual([
    'timed_out',
    'expired',
    'cancelled',
    'ignored',
    'audited',
    'uncertain',
    'stale',
    'tripped',
  ]);
});
