// Replay-corpus scenario: hosted tools (agents/hostedTools.ts). The provider's calls are items the model turn returns
// (no command of their own), and a run with a context sends it to describeAgent (for MCP toolFilter functions): this
// history proves both replay, with the provider-executed events the run derives from those items.
import { codeInterpreterTool, defineAgent, imageGenerationTool, webSearchTool } from '../../agents';
import { sendEmail } from '../../agents/demo/emailAssistant';
import { email, type Scenarios } from './common';

/** The corpus's agents for this scenario (scripts/historyAgents.ts registers them). */
export const hostedToolAgents = [
  defineAgent({
    name: 'history-hosted-tools',
    instructions: 'You research and write.',
    tools: [sendEmail, webSearchTool(), codeInterpreterTool(), imageGenerationTool({ size: '1024x1024' })],
  }),
];

export const hostedToolScenarios: Scenarios = {
  // A turn with three provider-executed calls (an image's base64 kept out) and a gated email, approved; then done.
  'hosted-tools': async (h, runner, id) => {
    h.model.script(id, [
      {
        providerItems: [
          { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
          { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', code: 'print(1)', container_id: 'c' },
          { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: 'A'.repeat(5000) },
        ],
        toolCalls: [email(1)],
      },
      { text: 'sent' },
    ]);
    const paused = await runner.run('history-hosted-tools', 'research and mail', {
      workflowId: id,
      context: { tenant: 'acme' },
    });
    await runner.run('history-hosted-tools', paused.toState().approve('m1', { approver: 'ann' }));
  },
};
