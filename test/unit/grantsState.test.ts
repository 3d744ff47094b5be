// Standing grants on their own (core/grants/grantsState.ts): uses, expiry, revoking, a call key used once however
// often it is asked, pruning and the continue-as-new carry. Matching is in grantMatching.test.ts.
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
import type { AddGrantRequest, GrantsState } from '../../contract/grantMessages';
import { request } from '../support/grantRequests';
const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const MIN = 60_000;
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
