// Replay-corpus scenarios: agent guardrails (workflows/guardrailGate.ts). Only agents whose snapshot lists guardrails
// take the new path (the runGuardrails activity, a pending item of kind guardrail), so these histories prove it.
import { defineAgent } from '../../agents';
import { type Scenarios, untilClosed } from './common';

/** The corpus's agents for these scenarios (scripts/historyAgents.ts registers them). */
export const guardrailAgents = [
  defineAgent({
    name: 'history-input-guardrail',
    instructions: 'You answer questions.',
    tools: [],
    inputGuardrails: [
      {
        name: 'no_passwords',
        onTripwire: 'ask',
        execute: ({ input }) => ({ tripwireTriggered: /password/i.test(input), outputInfo: { found: 'password' } }),
      },
    ],
  }),
  defineAgent({
    name: 'history-output-guardrail',
    instructions: 'You answer questions.',
    tools: [],
    outputGuardrails: [
      {
        name: 'no_digits',
        onTripwire: 'ask',
        execute: ({ agentOutput }) => ({ tripwireTriggered: /\d/.test(String(agentOutput)) }),
      },
    ],
  }),
];

export const guardrailScenarios: Scenarios = {
  // The input guardrail trips and asks; a person approves, and the model's answer (asked alongside) completes the run.
  'input-guardrail-ask-approved': async (h, runner, id) => {
    h.model.script(id, [{ text: 'I will not repeat it.' }]);
    const paused = await runner.run('history-input-guardrail', 'my password is hunter2', { workflowId: id });
    if (paused.interruptions[0]?.callId !== 'guardrail_no_passwords_1')
      throw new Error(`expected the guardrail to ask, got ${paused.status}`);
    await runner.decide(id, [{ callId: 'guardrail_no_passwords_1', decision: 'approve', approver: 'ann' }]);
    const done = await runner.nextPause(id);
    if (done.finalOutput !== 'I will not repeat it.') throw new Error(`unexpected end: ${done.status}`);
    await untilClosed(h, id);
  },
  // The output guardrail trips and asks; a person rejects: the model hears the message and answers again, which passes.
  'output-guardrail-ask-rejected': async (h, runner, id) => {
    h.model.script(id, [{ text: 'Your PIN is 4321.' }, { text: 'I cannot share it.' }]);
    const paused = await runner.run('history-output-guardrail', 'my PIN?', { workflowId: id });
    if (paused.interruptions[0]?.callId !== 'guardrail_no_digits_1')
      throw new Error(`expected the guardrail to ask, got ${paused.status}`);
    await runner.decide(id, [
      { callId: 'guardrail_no_digits_1', decision: 'reject', message: 'Do not reveal PINs.', approver: 'ann' },
    ]);
    const done = await runner.nextPause(id);
    if (done.finalOutput !== 'I cannot share it.') throw new Error(`unexpected end: ${done.status}`);
    await untilClosed(h, id);
  },
};
