// Replay-corpus scenarios: tool-use behaviour (core/run/toolUse.ts) and handoff input filters (workflows/handoffs.ts).
// Only agents whose snapshot carries these settings take the new paths, so these histories are the ones that prove them.
import { defineAgent } from '../../agents';
import { lookupContact, sendEmail } from '../../agents/demo/emailAssistant';
import { email, type Scenarios } from './common';

/** The corpus's agents for these scenarios (scripts/historyAgents.ts registers them). */
export const toolUseAgents = [
  // stop_on_first_tool, and a forced toolChoice that resetToolChoice (recorded: the agent forces one) sends as auto.
  defineAgent({
    name: 'history-stop-first',
    instructions: 'You look people up.',
    tools: [lookupContact, sendEmail],
    modelSettings: { toolChoice: 'required' },
    toolUseBehavior: 'stop_on_first_tool',
  }),
  defineAgent({
    name: 'history-route-remove-tools',
    instructions: 'You route requests.',
    tools: [lookupContact],
    handoffs: [{ agent: 'email-assistant', inputFilter: 'remove_all_tools', onHandoff: () => undefined }],
  }),
  defineAgent({
    name: 'history-route-function',
    instructions: 'You route requests.',
    tools: [lookupContact],
    handoffs: [
      {
        agent: 'email-assistant',
        inputFilter: ({ inputHistory }) => [
          { type: 'message', role: 'user', content: `handed over after ${inputHistory.length} items` },
        ],
      },
    ],
  }),
];

const lookup = (name: string, callId: string) => ({ name: 'lookup_contact', arguments: { name }, callId });
const handOver = { toolCalls: [{ name: 'transfer_to_email_assistant', arguments: { reason: 'mail' }, callId: 'h1' }] };

export const toolUseScenarios: Scenarios = {
  // A gated call rejected (it did not run: the model answers again, toolChoice still forced), then a lookup that
  // ran: its output is the final output (and the model is not asked again).
  'tool-use-stop-on-first-tool': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { toolCalls: [lookup('alice', 'l1')] }, { text: 'never asked' }]);
    const paused = await runner.run('history-stop-first', 'go', { workflowId: id });
    const done = await runner.run(
      'history-stop-first',
      paused.toState().reject('m1', { message: 'no', approver: 'ann' }),
    );
    if (done.finalOutput !== 'alice@example.com') throw new Error(`unexpected end: ${done.status} ${done.finalOutput}`);
  },
  // remove_all_tools with onHandoff (the handoffStarted activity), then the next agent's gated call approved.
  'handoff-remove-all-tools': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [lookup('alice', 'l1')] }, handOver, { toolCalls: [email(1)] }, { text: 'done' }]);
    const paused = await runner.run('history-route-remove-tools', 'go', { workflowId: id });
    const done = await runner.run('history-route-remove-tools', paused.toState().approve('m1', { approver: 'ann' }));
    if (done.finalOutput !== 'done') throw new Error(`unexpected end: ${done.status}`);
  },
  // A toolChoice forced by the run's own settings (the agent says nothing of resetToolChoice): at snapshot revision 2
  // it goes back to 'auto' once the lookup ran, without a patch marker (hasChange, workflows/patches.ts).
  'reset-run-tool-choice': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [lookup('alice', 'l1')] }, { text: 'alice@example.com' }]);
    const done = await runner.run('email-assistant', 'go', {
      workflowId: id,
      modelSettings: { toolChoice: 'required' },
    });
    const sent = h.model.requests.filter((r) => r.runId === id).map((r) => r.body.tool_choice);
    if (done.finalOutput !== 'alice@example.com' || JSON.stringify(sent) !== '["required","auto"]')
      throw new Error(`unexpected: ${done.status} ${done.finalOutput} ${JSON.stringify(sent)}`);
  },
  // A function filter (the handoffStarted activity): its items are what the next agent's model is sent.
  'handoff-function-filter': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [lookup('alice', 'l1')] }, handOver, { text: 'done' }]);
    const done = await runner.run('history-route-function', 'go', { workflowId: id });
    if (done.finalOutput !== 'done') throw new Error(`unexpected end: ${done.status}`);
  },
};
