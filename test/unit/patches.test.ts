// A change listed with a revision is taken without a marker only by runs whose snapshot covers it; describeAgent must
// write a revision that covers every listed change, or new runs would ask patched() and record markers again.
import { SNAPSHOT_REVISION } from '../../core/run/agentSnapshot';
import { NEEDED_REVISION, hasChange } from '../../workflows/patches';

test('describeAgent writes a revision that covers every change listed with one', () => {
  expect(NEEDED_REVISION).toBeGreaterThan(0);
  expect(SNAPSHOT_REVISION).toBeGreaterThanOrEqual(NEEDED_REVISION);
});

test('a covering snapshot answers without patched(); an older snapshot asks patched()', () => {
  // Outside a workflow patched() throws, so an answer here shows it was not asked.
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'publishOnce')).toBe(true);
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'decideWaits')).toBe(true);
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'resetRunToolChoice')).toBe(true);
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'ledger')).toBe(true);
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'heldDecisions')).toBe(true);
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'ledgerRides')).toBe(true);
  expect(() => hasChange({ revision: 4 }, 'ledgerRides')).toThrow(); // revision 4 predates it: patched() decides
  expect(hasChange({ revision: SNAPSHOT_REVISION }, 'leanPromises')).toBe(true);
  expect(() => hasChange({ revision: 5 }, 'leanPromises')).toThrow(); // revision 5 predates it: patched() decides
  expect(() => hasChange({ revision: 3 }, 'heldDecisions')).toThrow(); // revision 3 predates it: patched() decides
  expect(() => hasChange({ revision: 2 }, 'ledger')).toThrow(); // revision 2 predates it: patched() decides
  expect(() => hasChange({ revision: 1 }, 'resetRunToolChoice')).toThrow(); // revision 1 predates it: patched() decides
  expect(() => hasChange({}, 'publishOnce')).toThrow();
  expect(() => hasChange(undefined, 'decideWaits')).toThrow();
  expect(() => hasChange({ revision: SNAPSHOT_REVISION }, 'staleApprovals')).toThrow(); // listed without a revision
});
