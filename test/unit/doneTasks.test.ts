// Tasks of calls that no person decided (gateway/doneTasks.ts): ended when made, their principal's only, kept for
// their ttl, at most 1,000, the oldest forgotten first.
import { DONE_TASK_TTL_MS, DoneTasks } from '../../gateway/doneTasks';

const ok = { content: [{ type: 'text' as const, text: 'done' }] };

test("a task is ended when made, its principal's only, and kept for its ttl", () => {
  const done = new DoneTasks();
  const t0 = Date.parse('2026-12-02T08:00:00Z');
  const task = done.add('ann', ok, t0);
  expect(task).toMatchObject({ status: 'completed', ttl: DONE_TASK_TTL_MS, createdAt: '2026-12-02T08:00:00.000Z' });
  // A tool's error result is a completed task, as the gated calls' rejections are (MCP: failed is a JSON-RPC error).
  const refused = done.add('ann', { ...ok, isError: true }, t0);
  expect(refused.status).toBe('completed');
  expect(done.get('ann', task.taskId, t0 + 1)?.result).toEqual(ok);
  expect(done.get('bob', task.taskId, t0 + 1)).toBeUndefined();
  expect(done.list('bob', t0 + 1)).toEqual([]);
  expect(done.list('ann', t0 + 1).map((t) => t.taskId)).toEqual([refused.taskId, task.taskId]); // newest first
  expect(done.get('ann', task.taskId, t0 + DONE_TASK_TTL_MS)).toBeUndefined();
  expect(done.get('ann', `gateway-x-${'0'.repeat(32)}:run`, t0)).toBeUndefined();
});

test('at most 1,000 are kept: the oldest is forgotten first', () => {
  const done = new DoneTasks();
  const first = done.add('ann', ok);
  for (let i = 0; i < 1_000; i++) done.add('ann', ok);
  expect(done.get('ann', first.taskId)).toBeUndefined();
  expect(done.list('ann')).toHaveLength(1_000);
});
