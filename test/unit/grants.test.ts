// Standing grants on their own (core/grants/grantsState.ts): what `where` accepts, which calls a grant matches, uses, expiry,
// revoking, a call key used once however often it is asked, pruning and the continue-as-new carry; which tools may
// be granted; and the approval book auditing a granted call.
import { ApprovalBook } from '../../core/approvals/approvalBook';
import type { AgentSnapshot } from '../../core/run/agentSnapshot';
import {
  CALL_KEY_RETENTION_MS,
  GRANT_RETENTION_MS,
  MAX_REMEMBERED,
  activeGrants,
  addGrant,
  carryGrants,
  checkRevoke,
  emptyGrants,
  grantStatus,
  pruneGrants,
  revokeGrant,
  useGrant,
} from '../../core/grants/grantsState';
import { argumentsOf, globMatch, matchesWhere } from '../../core/grants/grantMatching';
import { grantRefusal, grantWarning, notGrantable } from '../../core/grants/grantableTools';
import { type AddGrantRequest, type GrantsState, addGrantRequestSchema } from '../../contract/grantMessages';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const MIN = 60_000;
const request = (more: Partial<AddGrantRequest> = {}): AddGrantRequest => ({
  agent: 'mailer',
  tool: 'send_email',
  where: { to: '*@example.com' },
  for: '1h',
  grantedBy: 'ann',
  ...more,
});
const call = (args: Record<string, unknown>, callKey = 'wf:run:c1', more = {}) => ({
  agent: 'mailer',
  tool: 'send_email',
  arguments: JSON.stringify(args),
  callKey,
  ...more,
});
const withGrant = (more: Partial<AddGrantRequest> = {}, id = 'g-1'): GrantsState => {
  const s = emptyGrants();
  addGrant(s, request(more), id, T0);
  return s;
};

describe('matching', () => {
  test('exact values: strings, numbers, booleans, null, arrays and objects (key order aside)', () => {
    expect(matchesWhere({ to: 'bob@example.com' }, argumentsOf('{"to":"bob@example.com","subject":"hi"}'))).toBe(true);
    expect(matchesWhere({ to: 'bob@example.com' }, argumentsOf('{"to":"Bob@example.com"}'))).toBe(false);
    expect(matchesWhere({ n: 3, ok: true, none: null }, argumentsOf('{"n":3,"ok":true,"none":null}'))).toBe(true);
    expect(matchesWhere({ n: 3 }, argumentsOf('{"n":"3"}'))).toBe(false);
    expect(matchesWhere({ tags: ['a', 'b'] }, argumentsOf('{"tags":["a","b"]}'))).toBe(true);
    expect(matchesWhere({ tags: ['a', 'b'] }, argumentsOf('{"tags":["b","a"]}'))).toBe(false);
    expect(matchesWhere({ opts: { a: 1, b: [2] } }, argumentsOf('{"opts":{"b":[2],"a":1}}'))).toBe(true);
    expect(matchesWhere({ opts: { a: 1 } }, argumentsOf('{"opts":{"a":1,"b":2}}'))).toBe(false);
  });

  test('globs: * is any run of characters, everything else literal', () => {
    expect(globMatch('*@example.com', 'bob@example.com')).toBe(true);
    expect(globMatch('*@example.com', '@example.com')).toBe(true);
    expect(globMatch('*@example.com', 'bob@example.com.evil.org')).toBe(false);
    expect(globMatch('*@example.com', 'bob@exampleXcom')).toBe(false); // "." is literal, not a regex
    expect(globMatch('report-*-*.pdf', 'report-2026-q1.pdf')).toBe(true);
    expect(globMatch('a*b*c', 'aXbYc')).toBe(true);
    expect(globMatch('a*b*c', 'aXcYb')).toBe(false);
    expect(globMatch('*', '')).toBe(true);
    expect(globMatch('(a+)+$', '(a+)+$')).toBe(true);
    // Pathological patterns stay fast (no backtracking regex).
    const started = Date.now();
    expect(globMatch(`${'*a'.repeat(30)}b`, 'a'.repeat(5000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(matchesWhere({ to: '*@example.com' }, argumentsOf('{"to":42}'))).toBe(false); // a glob matches strings only
  });

  test('ranges: max and min for numbers, inclusive', () => {
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":100}'))).toBe(true);
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":100.5}'))).toBe(false);
    expect(matchesWhere({ amount: { min: 10, max: 100 } }, argumentsOf('{"amount":9}'))).toBe(false);
    expect(matchesWhere({ amount: { min: 10 } }, argumentsOf('{"amount":1e9}'))).toBe(true);
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":"50"}'))).toBe(false);
  });

  test('every constraint must hold; a constrained argument that is missing fails; others are free', () => {
    const where = { to: '*@example.com', amount: { max: 5 } };
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com","amount":5,"cc":"x@evil.org"}'))).toBe(true);
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com","amount":6}'))).toBe(false);
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com"}'))).toBe(false);
    expect(matchesWhere({}, argumentsOf('not json'))).toBe(true); // no constraints: any call of the tool
    expect(matchesWhere(where, argumentsOf('not json'))).toBe(false);
    expect(matchesWhere(where, argumentsOf('[1,2]'))).toBe(false);
  });

  test('what `where` accepts, and the one-line problems with the rest', () => {
    const problem = (more: Partial<AddGrantRequest>) => {
      const parsed = addGrantRequestSchema.safeParse(request(more));
      return parsed.success
        ? undefined
        : `${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`;
    };
    expect(
      problem({ where: { to: '*@x.com', amount: { max: 5 }, n: { min: 1, max: 2 }, obj: { a: 1 }, list: [1] } }),
    ).toBeUndefined();
    expect(problem({ where: { amount: { max: 'ten' } } })).toBe('where.amount: "min" and "max" must be numbers');
    expect(problem({ where: { amount: { max: 5, unit: 'eur' } } })).toBe(
      'where.amount: a range has only "min" and/or "max"',
    );
    expect(problem({ where: { amount: { min: 9, max: 5 } } })).toBe('where.amount: "min" is larger than "max"');
    expect(problem({ where: [] as never })).toMatch(/^where: must be a JSON object of argument constraints/);
    expect(problem({ where: { to: 'x'.repeat(2000) } })).toBe('where: at most 1000 characters of JSON');
    expect(problem({ for: 'soon' })).toBe('for: must be a duration such as "30s", "15m", "24h" or "7d"');
    expect(problem({ for: '400d' })).toBe('for: at most 366d');
    expect(problem({ uses: 0 })).toBe('uses: must be at least 1');
    expect(problem({ uses: 1.5 })).toBe('uses: must be a whole number');
    expect(problem({ grantedBy: '' })).toBe('grantedBy: must not be empty');
  });
});

describe('uses, expiry, revoking', () => {
  test('a match takes one use of the first active grant; its grantor is the approver', () => {
    const s = withGrant({ uses: 2 });
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0 + MIN)).toEqual({ grantId: 'g-1', grantedBy: 'ann' });
    expect(useGrant(s, call({ to: 'b@evil.org' }, 'k2'), T0 + MIN)).toBeNull();
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k2', { tool: 'delete_record' }), T0 + MIN)).toBeNull();
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k2', { agent: 'other' }), T0 + MIN)).toBeNull();
    expect(activeGrants(s, T0 + MIN)).toEqual([
      {
        id: 'g-1',
        agent: 'mailer',
        tool: 'send_email',
        where: { to: '*@example.com' },
        grantedBy: 'ann',
        grantedAt: '2026-11-22T10:00:00.000Z',
        expiresAt: '2026-11-22T11:00:00.000Z',
        usesLeft: 1,
      },
    ]);
    expect(useGrant(s, call({ to: 'c@example.com' }, 'k3'), T0 + MIN)).toEqual({ grantId: 'g-1', grantedBy: 'ann' });
    expect(grantStatus(s.grants[0]!, T0 + MIN)).toBe('exhausted');
    expect(useGrant(s, call({ to: 'd@example.com' }, 'k4'), T0 + MIN)).toBeNull();
    expect(activeGrants(s, T0 + MIN)).toEqual([]);
  });

  test('without uses a grant holds until it expires, then never again', () => {
    const s = withGrant();
    for (let i = 0; i < 50; i++)
      expect(useGrant(s, call({ to: 'a@example.com' }, `k${i}`), T0 + 59 * MIN)).not.toBeNull();
    expect(activeGrants(s, T0 + 59 * MIN)[0]!.usesLeft).toBeNull();
    expect(useGrant(s, call({ to: 'a@example.com' }, 'late'), T0 + 60 * MIN)).toBeNull();
    expect(grantStatus(s.grants[0]!, T0 + 60 * MIN)).toBe('expired');
  });

  test('a call key uses a grant once: asking again gives the same answer and takes no second use', () => {
    const s = withGrant({ uses: 1 });
    const first = useGrant(s, call({ to: 'a@example.com' }, 'wf:run:c1'), T0);
    expect(useGrant(s, call({ to: 'a@example.com' }, 'wf:run:c1'), T0 + MIN)).toEqual(first);
    expect(s.grants[0]!.used).toBe(1);
    expect(useGrant(s, call({ to: 'a@example.com' }, 'wf:run:c2'), T0 + MIN)).toBeNull();
  });

  test('grants by people who may not approve the call are skipped, not used', () => {
    const s = withGrant({ grantedBy: 'mallory' });
    addGrant(s, request({ grantedBy: 'cy' }), 'g-2', T0);
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k1', { approvers: ['ann', 'cy'] }), T0)).toEqual({
      grantId: 'g-2',
      grantedBy: 'cy',
    });
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k2', { approvers: ['ann', 'cy'], notBy: 'cy' }), T0)).toBeNull();
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k3', { approvers: ['ann'] }), T0)).toBeNull();
    expect(s.grants.map((g) => g.used)).toEqual([0, 1]);
  });

  test('revoked grants stop applying at once; a call key that used one asks afresh', () => {
    const s = withGrant();
    addGrant(s, request({ grantedBy: 'bob' }), 'g-2', T0);
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0)).toEqual({ grantId: 'g-1', grantedBy: 'ann' });
    revokeGrant(s, { grantId: 'g-1', by: 'ann' }, T0 + MIN);
    expect(s.grants[0]).toMatchObject({ revokedAt: '2026-11-22T10:01:00.000Z', revokedBy: 'ann' });
    expect(useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0 + MIN)).toEqual({ grantId: 'g-2', grantedBy: 'bob' });
    expect(checkRevoke(s, 'g-1', T0 + MIN)).toBe('grant g-1 is no longer active: revoked');
    expect(checkRevoke(s, 'g-9', T0)).toBe('unknown grant g-9 (see: countersign grants)');
    expect(() => revokeGrant(s, { grantId: 'g-1' }, T0 + MIN)).toThrow('grant g-1 is no longer active: revoked');
    expect(checkRevoke(s, 'g-2', T0 + 2 * 60 * MIN)).toBe('grant g-2 is no longer active: expired');
  });

  test('ids are unique', () => {
    const s = withGrant();
    expect(() => addGrant(s, request(), 'g-1', T0)).toThrow('grant id g-1 is taken');
  });
});

describe('pruning and continue-as-new', () => {
  test('ended grants are kept a day (revoke still says why), then dropped; active ones stay', () => {
    const s = withGrant({ for: '1h' });
    addGrant(s, request({ for: '7d' }), 'g-long', T0);
    addGrant(s, request({ uses: 1, for: '7d' }), 'g-once', T0);
    useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0); // g-1 first
    pruneGrants(s, T0 + 60 * MIN + GRANT_RETENTION_MS - 1);
    expect(s.grants.map((g) => g.id)).toEqual(['g-1', 'g-long', 'g-once']);
    pruneGrants(s, T0 + 60 * MIN + GRANT_RETENTION_MS);
    expect(s.grants.map((g) => g.id)).toEqual(['g-long', 'g-once']);
    revokeGrant(s, { grantId: 'g-once' }, T0 + 2 * GRANT_RETENTION_MS);
    pruneGrants(s, T0 + 3 * GRANT_RETENTION_MS);
    expect(s.grants.map((g) => g.id)).toEqual(['g-long']);
  });

  test('exhausted grants end at their last use', () => {
    const s = withGrant({ uses: 1, for: '7d' });
    useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0 + MIN);
    pruneGrants(s, T0 + MIN + GRANT_RETENTION_MS);
    expect(s.grants).toEqual([]);
  });

  test('call keys are remembered an hour, at most MAX_REMEMBERED of them (the oldest go first)', () => {
    const s = withGrant({ for: '7d' });
    useGrant(s, call({ to: 'a@example.com' }, 'old'), T0);
    for (let i = 0; i < MAX_REMEMBERED; i++) useGrant(s, call({ to: 'a@example.com' }, `k${i}`), T0 + MIN);
    pruneGrants(s, T0 + MIN);
    expect(Object.keys(s.used)).toHaveLength(MAX_REMEMBERED);
    expect(s.used.old).toBeUndefined();
    pruneGrants(s, T0 + MIN + CALL_KEY_RETENTION_MS);
    expect(s.used).toEqual({});
  });

  test('the carry holds only active grants and remembered call keys', () => {
    const s = withGrant({ uses: 1 });
    addGrant(s, request({ for: '7d' }), 'g-2', T0);
    addGrant(s, request(), 'g-3', T0);
    useGrant(s, call({ to: 'a@example.com' }, 'k1'), T0);
    revokeGrant(s, { grantId: 'g-3' }, T0);
    const carried = carryGrants(s, T0 + MIN);
    expect(carried.grants.map((g) => g.id)).toEqual(['g-2']);
    expect(carried.used).toEqual({ k1: { grantId: 'g-1', grantedBy: 'ann', at: '2026-11-22T10:00:00.000Z' } });
    expect(JSON.parse(JSON.stringify(carried))).toEqual(carried); // plain JSON
  });
});

describe('which tools may be granted', () => {
  const agent = (
    toolPolicy: Record<string, unknown> = {},
    more: Partial<AgentSnapshot['tools'][number]> = {},
    agentPolicy = {},
  ): AgentSnapshot => ({
    name: 'mailer',
    version: '1',
    instructions: 'x',
    policy: agentPolicy,
    tools: [{ name: 'send_email', description: 'd', parameters: {}, approval: 'always', policy: toolPolicy, ...more }],
  });

  test('quorum and signed decisions are never granted unless the policy says grantable: true; grantable: false forbids', () => {
    expect(grantRefusal(agent(), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({ quorum: 2, approvers: ['a', 'b'] }), 'send_email')).toBe(
      'tool send_email needs 2 approvals per call (quorum): it cannot be granted unless its policy says grantable: true',
    );
    expect(grantRefusal(agent({ quorum: 2, grantable: true }), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({}, {}, { signedDecisions: true }), 'send_email')).toMatch(/needs signed decisions/);
    expect(grantRefusal(agent({ grantable: false }), 'send_email')).toBe(
      'tool send_email may not be granted (its policy says grantable: false)',
    );
    expect(notGrantable('send_email', {}, true)).toMatch(/needs signed decisions/); // the worker's COUNTERSIGN_REQUIRE_SIGNED_DECISIONS
    expect(notGrantable('send_email', { grantable: true }, true)).toBeUndefined();
  });

  test('unknown tools, tools that never ask, input and external tools are refused', () => {
    expect(grantRefusal(agent(), 'nope')).toBe('agent mailer has no tool nope (it has: send_email)');
    expect(grantRefusal(agent({}, { approval: 'never' }), 'send_email')).toBe(
      'tool send_email never needs approval: there is nothing to grant',
    );
    expect(grantRefusal(agent({}, { approval: 'predicate' }), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({}, { external: true }), 'send_email')).toMatch(/waits for an external result/);
    expect(grantRefusal(agent({}, { userInput: ['to'] }), 'send_email')).toMatch(/waits for input/);
  });

  test('a grantor outside the approvers gets a warning when granting', () => {
    expect(grantWarning(agent({ approvers: ['cfo'] }), 'send_email', 'ann')).toBe(
      'ann is not among the approvers of send_email (cfo): this grant applies to none of its calls',
    );
    expect(grantWarning(agent({}, {}, { approvers: ['ann'] }), 'send_email', 'ann')).toBeUndefined();
  });
});

test('the approval book audits a granted call as granted, via grant, by the grantor, with the grant id', () => {
  const book = new ApprovalBook();
  const booked = book.request(
    {
      callId: 'c1',
      toolName: 'send_email',
      agentName: 'mailer',
      arguments: '{}',
      requestedAt: '2026-11-22T10:00:00.000Z',
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    '2026-11-22T10:00:00.000Z',
    { decision: 'approve', reason: 'standing grant g-1', grantId: 'g-1', grantedBy: 'ann' },
  );
  expect(booked.state).toBe('approved');
  expect(book.state.audit).toEqual([
    expect.objectContaining({
      callId: 'c1',
      decision: 'granted',
      via: 'grant',
      approver: 'ann',
      grantId: 'g-1',
      reason: 'standing grant g-1',
    }),
  ]);
  // onApproval's decisions are unchanged.
  book.request(
    {
      callId: 'c2',
      toolName: 'send_email',
      agentName: 'mailer',
      arguments: '{}',
      requestedAt: 'x',
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    'x',
    { decision: 'approve', reason: 'small' },
  );
  expect(book.state.audit[1]).toMatchObject({ decision: 'auto_approved', via: 'onApproval' });
  expect(book.state.audit[1]).not.toHaveProperty('grantId');
});
