// Replay-corpus scenario: a tool with its own timeout (defineTool timeout) runs past it on every attempt, and the
// model is told (the text planned for it), and the run goes on (workflows/toolTimeouts.ts). Only agents whose
// snapshot gives a tool a timeout take this path, so this history is the one that proves it.
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';
import type { Scenarios } from './common';

/** The corpus's agents for this scenario (scripts/historyAgents.ts registers them). */
export const toolTimeoutAgents = [
  defineAgent({
    name: 'history-timed',
    instructions: 'You search slowly.',
    tools: [
      defineTool({
        name: 'slow_search',
        description: 'Search, slowly unless asked to be quick',
        parameters: z.object({ ms: z.number() }),
        timeout: '1s',
        errorText: (error) => `${error.message}; try a narrower search.`,
        execute: async ({ ms }) => {
          await new Promise((r) => setTimeout(r, ms));
          return `searched for ${ms}ms`;
        },
      }),
    ],
  }),
];

export const toolTimeoutScenarios: Scenarios = {
  // Two calls of the timed tool: one past its 1s on all five attempts (the model gets errorText), one in time.
  'tool-timeout': async (h, runner, id) => {
    h.model.script(id, [
      {
        toolCalls: [
          { name: 'slow_search', arguments: { ms: 2500 }, callId: 't1' },
          { name: 'slow_search', arguments: { ms: 10 }, callId: 't2' },
        ],
      },
      { text: 'told' },
    ]);
    const done = await runner.run('history-timed', 'search', { workflowId: id });
    const outputs = (await runner.describe(id)).items.flatMap((i) =>
      i.type === 'function_call_output' ? [i.output] : [],
    );
    const expected = ['Tool slow_search did not finish within 1s; try a narrower search.', 'searched for 10ms'];
    if (done.finalOutput !== 'told' || JSON.stringify(outputs) !== JSON.stringify(expected))
      throw new Error(`expected the model to be told, got ${done.finalOutput}: ${JSON.stringify(outputs)}`);
  },
};
