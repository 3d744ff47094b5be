// The outcome of an approved ask-only call as a hook's input gives it (gateway/callOutcomes.ts) and as the audit
// shows it in one line (core/approvals/callOutcomes.ts).
import { outcomeLine } from '../../core/approvals/callOutcomes';
import { outcomeOfHook } from '../../gateway/callOutcomes';
import { MAX_OUTCOME_CHARS, callOutcomeSchema } from '../../contract/gatewayMessages';

test("a hook's PostToolUse keeps an exit code its response carries, never its output", () => {
  const ok = { hook_event_name: 'PostToolUse' as const };
  expect(outcomeOfHook({ ...ok, tool_response: { stdout: 'SECRET=1', stderr: '' } })).toEqual({ text: 'succeeded' });
  expect(outcomeOfHook({ ...ok, tool_response: { stdout: 'x', exit_code: 3 } })).toEqual({ exitCode: 3 });
  expect(outcomeOfHook({ ...ok, tool_response: { interrupted: true } })).toEqual({ error: 'interrupted' });
});

test("PostToolUseFailure: its error, cut to size, with 'Exit code N' as the exit code", () => {
  const failed = { hook_event_name: 'PostToolUseFailure' as const };
  expect(outcomeOfHook({ ...failed, error: 'Exit code 2\nno such file' })).toEqual({
    exitCode: 2,
    error: 'Exit code 2\nno such file',
  });
  expect(outcomeOfHook({ ...failed, error: 'boom', is_interrupt: true })).toEqual({ error: 'interrupted: boom' });
  const long = outcomeOfHook({ ...failed, error: 'x'.repeat(5000) });
  expect(long.error).toHaveLength(MAX_OUTCOME_CHARS);
  expect(callOutcomeSchema.safeParse(long).success).toBe(true);
});

test('the audit line: exit code, error, text, in one line', () => {
  expect(outcomeLine({ exitCode: 1, error: 'a\nb', text: 'done' })).toBe('exit 1; error: a b; done');
  expect(outcomeLine({})).toBe('reported, with no detail');
});
