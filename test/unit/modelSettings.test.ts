// Model settings: checked where they are defined (one line), the run's over the agent's, and as each API names them.
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';
import { checkModelSettings, mergeModelSettings } from '../../contract/modelSettings';
import { chatSettings, responsesSettings } from '../../activities/model/providerSettings';

const send = defineTool({
  name: 'send_email',
  description: 'Send',
  parameters: z.object({ to: z.string() }),
  execute: () => 'sent',
});

test('unknown, misspelt or out-of-range settings are refused at definition, in one line', () => {
  expect(() =>
    defineAgent({ name: 'a', instructions: 'i', tools: [send], modelSettings: { temprature: 0.2 } as never }),
  ).toThrow('agent a: modelSettings: Unrecognized key: "temprature"');
  expect(() => defineAgent({ name: 'a', instructions: 'i', tools: [send], modelSettings: { temperature: 3 } })).toThrow(
    /^agent a: modelSettings: temperature: /,
  );
  expect(() =>
    defineAgent({ name: 'a', instructions: 'i', tools: [send], modelSettings: { toolChoice: 'delete_all' } }),
  ).toThrow('agent a: modelSettings: toolChoice "delete_all" is not one of its tools (send_email)');
  expect(() =>
    defineAgent({
      name: 'a',
      instructions: 'i',
      tools: [send],
      modelSettings: { reasoningEffort: 'extreme' as never },
    }),
  ).toThrow(/^agent a: modelSettings: reasoningEffort: /);
  const ok = defineAgent({
    name: 'a',
    instructions: 'i',
    tools: [send],
    modelSettings: { toolChoice: 'send_email', temperature: 0 },
  });
  expect(ok.snapshot().modelSettings).toEqual({ toolChoice: 'send_email', temperature: 0 });
  expect(checkModelSettings('run', { maxOutputTokens: 0 })).toEqual({
    problem: expect.stringMatching(/^run: modelSettings: maxOutputTokens: /),
  });
});

test("the run's settings win over the agent's, key by key, providerData merged", () => {
  expect(mergeModelSettings(undefined, undefined)).toBeUndefined();
  expect(
    mergeModelSettings(
      { temperature: 0.1, toolChoice: 'auto', providerData: { seed: 1, user: 'a' } },
      { temperature: 0.9, providerData: { seed: 2 } },
    ),
  ).toEqual({ temperature: 0.9, toolChoice: 'auto', providerData: { seed: 2, user: 'a' } });
});

test('Responses and Chat Completions request fields, store off unless asked, tool fields only with tools', () => {
  const s = {
    temperature: 0.2,
    topP: 0.9,
    maxOutputTokens: 300,
    toolChoice: 'required',
    parallelToolCalls: false,
    reasoningEffort: 'low' as const,
    providerData: { seed: 7, temperature: 1 },
  };
  expect(responsesSettings(s, ['send_email'])).toEqual({
    seed: 7,
    temperature: 0.2,
    top_p: 0.9,
    max_output_tokens: 300,
    tool_choice: 'required',
    parallel_tool_calls: false,
    reasoning: { effort: 'low' },
    store: false,
  });
  expect(chatSettings(s, ['send_email'])).toEqual({
    seed: 7,
    temperature: 0.2,
    top_p: 0.9,
    max_completion_tokens: 300,
    tool_choice: 'required',
    parallel_tool_calls: false,
    reasoning_effort: 'low',
  });
  expect(responsesSettings({ toolChoice: 'send_email', store: true }, ['send_email'])).toEqual({
    tool_choice: { type: 'function', name: 'send_email' },
    store: true,
  });
  expect(chatSettings({ toolChoice: 'send_email' }, ['send_email'])).toEqual({
    tool_choice: { type: 'function', function: { name: 'send_email' } },
  });
  expect(responsesSettings({ toolChoice: 'required', parallelToolCalls: true }, [])).toEqual({ store: false });
  expect(responsesSettings(undefined, ['x'])).toEqual({ store: false });
  expect(() => chatSettings({ toolChoice: 'gone' }, ['send_email'])).toThrow(
    'modelSettings.toolChoice names "gone", which is not one of the agent\'s tools (send_email)',
  );
});
