// defineTool's guardrails, timeout and errorText: bad ones are refused at definition in one line, and the agent's
// snapshot records a tool's timeout (the workflow reads it from there) and nothing for tools without one.
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';

const base = {
  name: 'lookup',
  description: 'Look up',
  parameters: z.object({ q: z.string() }),
  execute: () => 'ok',
};
const allow = { name: 'g', run: () => ({ behavior: { type: 'allow' as const } }) };

test('a bad timeout, errorText or guardrail is refused at definition in one line', () => {
  expect(() => defineTool({ ...base, timeout: 'soon' })).toThrow(
    'tool lookup: timeout must be a duration such as "30s", "5m" or "1h"',
  );
  expect(() => defineTool({ ...base, errorText: 'oops' as never })).toThrow(
    'tool lookup: errorText must be a function (error, ctx) => string',
  );
  expect(() => defineTool({ ...base, inputGuardrails: [{ name: 'g' } as never] })).toThrow(
    'tool lookup: each of inputGuardrails needs a name and a run function',
  );
  expect(() => defineTool({ ...base, outputGuardrails: allow as never })).toThrow(
    'tool lookup: outputGuardrails must be an array of { name, run }',
  );
  expect(() => defineTool({ ...base, outputGuardrails: [{ ...allow, type: 'tool_input' } as never] })).toThrow(
    'tool lookup: g is a tool input guardrail; an output guardrail cannot ask a person or stop the call: the tool already ran',
  );
  expect(() => defineTool({ ...base, inputGuardrails: [{ ...allow, type: 'tool_output' } as never] })).toThrow(
    'tool lookup: g is a tool output guardrail; put it in outputGuardrails',
  );
});

test("the snapshot records a tool's timeout, and nothing for a tool without one", () => {
  const timed = defineTool({ ...base, timeout: '30s', errorText: () => 'slow', inputGuardrails: [allow] });
  const plain = defineTool({ ...base, name: 'plain' });
  const tools = defineAgent({ name: 'a', instructions: 'test', tools: [timed, plain] }).snapshot().tools;
  expect(tools.find((t) => t.name === 'lookup')!.timeout).toBe('30s');
  expect(tools.find((t) => t.name === 'plain')).not.toHaveProperty('timeout');
});
