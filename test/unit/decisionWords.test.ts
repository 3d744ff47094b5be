// The decision's words, once: every verb the wire takes, the outcome each comes to (by a person, by code, by a grant,
// on an uncertain call, counted toward a quorum, forwarded to a sub-run), the lists the schema and the audit use, and
// the one table of what each outcome means, which records, metrics, traces, the report and the CLI all read.
import {
  AUDIT_DECISIONS,
  type AuditDecision,
  CALL_ENDS,
  DECISION_OUTCOMES,
  DECISION_VERBS,
  type DecisionVerb,
  OUTCOME_MEANINGS,
  type OutcomeMeaning,
  approvesCall,
  decisionVerbSchema,
  endsWait,
  isAuditDecision,
  outcomeOf,
  settlesCall,
  toneOf,
  uncertainAnswer,
} from '../../contract/decisionWords';
import { decisionSchema } from '../../contract/messages';
import { APPROVAL_STATUSES } from '../../core/approvals/approvalHistory';
import { isTerminal } from '../../core/approvals/callFold';
import { REVIEW_STATUSES } from '../../core/approvals/reviewQueue';
import { APPROVAL_OUTCOMES, approvalOutcome } from '../../core/run/meteredEvents';
import { toneColour } from '../../cli/terminalOutput';

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
    'outcome',
  ]);
});

describe('the one table of outcomes', () => {
  const meaning = (w: AuditDecision) => OUTCOME_MEANINGS[w] as OutcomeMeaning;

  test('approving words end the call and approve; a no ends it without approving', () => {
    for (const w of ['approved', 'auto_approved', 'granted', 'timed_out'] as const)
      expect([w, meaning(w).ends, meaning(w).approves, meaning(w).tone]).toEqual([w, 'call', true, 'good']);
    for (const w of ['rejected', 'auto_rejected', 'expired', 'cancelled'] as const)
      expect([w, meaning(w).ends, meaning(w).approves]).toEqual([w, 'call', false]);
    for (const w of ['input_provided', 'result_provided'] as const)
      expect([w, meaning(w).ends, meaning(w).approves]).toEqual([w, 'call', null]);
  });

  test('steps along a wait end none; answers about an uncertain call end its wait, not the call', () => {
    const still = AUDIT_DECISIONS.filter((w) => !endsWait(w));
    expect(still).toEqual([
      'forwarded',
      'approval_counted',
      'extended',
      'ignored',
      'audited',
      'uncertain',
      'stale',
      'tripped',
      'outcome',
    ]);
    for (const w of ['retry', 'done', 'failed'] as const)
      expect([w, endsWait(w), settlesCall(w)]).toEqual([w, true, false]);
    for (const w of AUDIT_DECISIONS) if (!endsWait(w)) expect([w, meaning(w).approves]).toEqual([w, null]);
  });

  test('the lists that read outcomes agree with the table', () => {
    const settling = AUDIT_DECISIONS.filter((w) => meaning(w).ends === 'call');
    expect([...CALL_ENDS].sort()).toEqual([...settling].sort());
    // records: every settling outcome, in the order the CLI and the report's CSV have always listed them
    expect(APPROVAL_STATUSES).toEqual(['pending', ...CALL_ENDS, ...REVIEW_STATUSES]);
    expect(CALL_ENDS).toEqual([
      'approved',
      'rejected',
      'expired',
      'cancelled',
      'auto_approved',
      'auto_rejected',
      'granted',
      'timed_out',
      'input_provided',
      'result_provided',
    ]);
    for (const w of AUDIT_DECISIONS) expect([w, isTerminal({ decision: w })]).toEqual([w, settling.includes(w)]);
    // metrics: the settling outcomes that say yes or no
    const yesNo = settling.filter((w) => meaning(w).approves !== null);
    expect([...APPROVAL_OUTCOMES].sort()).toEqual([...yesNo].sort());
    for (const w of AUDIT_DECISIONS) expect([w, approvalOutcome(w)]).toEqual([w, yesNo.includes(w) ? w : undefined]);
    // the report's approval rate: what approves, and no status that is no outcome
    for (const w of APPROVAL_STATUSES)
      expect([w, approvesCall(w)]).toEqual([w, isAuditDecision(w) && meaning(w).approves === true]);
    expect(approvesCall('pending')).toBe(false);
  });

  test('every outcome has its tone, and the CLI paints each tone one way', () => {
    expect(Object.keys(OUTCOME_MEANINGS).sort()).toEqual([...AUDIT_DECISIONS].sort());
    for (const w of AUDIT_DECISIONS) expect(Object.keys(toneColour)).toContain(toneOf(w));
    expect(toneOf('uncertain')).toBe('waiting');
    expect(toneOf('ignored')).toBe('neutral');
    expect(toneOf('approval_counted')).toBe('good');
    expect(toneOf('stale')).toBe('bad');
  });
});
