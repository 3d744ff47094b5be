// What the gateway remembers of answers already handed out is bounded by time: an entry older than KEPT_MS no longer
// counts (such runs are never handed out again anyway), so it is forgotten as newer ones come.
import { KEPT_MS, OwedResults } from '../../gateway/owedResults';

test('collected answers are forgotten once older than the time they could be handed out in', () => {
  const owed = new OwedResults();
  const t0 = 1_000_000;
  for (let i = 0; i < 500; i++) owed.collect({ workflowId: 'w', runId: `r${i}` }, t0 + i);
  expect(owed.size).toBe(500);
  owed.collect({ workflowId: 'w', runId: 'late' }, t0 + KEPT_MS + 250); // the first 251 are now too old
  expect(owed.size).toBe(500 - 251 + 1);
  owed.collect({ workflowId: 'w', runId: 'later' }, t0 + 3 * KEPT_MS);
  expect(owed.size).toBe(1);
});
