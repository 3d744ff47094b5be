// fromOpenAIAgents on what Countersign cannot honour, built with the SDK's own classes: each is refused when the agents
// are mapped, in one line naming the agent and the field.
import * as sdk from '@openai/agents';
import { z } from 'zod';
import { fromOpenAIAgents } from '../../adapters/openaiAgents';
import { amountParameters as params, refusal, sdkVersions as versions } from '../support/agentsSdk';

describe.each(versions)('fromOpenAIAgents refuses with @openai/agents %s', (_version, S) => {
  test('each thing that cannot map is refused in one line naming the agent and the field', () => {
    const model = { getResponse: async () => ({}), getStreamedResponse: async function* () {} };
    expect(refusal(new S.Agent({ name: 'm', model: model as never }))).toMatch(
      /^fromOpenAIAgents: agent "m": model is a Model object, which Countersign cannot call/,
    );
    expect(refusal(new S.Agent({ name: 'p', prompt: { promptId: 'pmpt_1' } }))).toMatch(
      /^fromOpenAIAgents: agent "p": prompt cannot map/,
    );
    expect(refusal(new S.Agent({ name: 'u', toolUseBehavior: () => ({ isFinalOutput: false }) as never }))).toMatch(
      /^fromOpenAIAgents: agent "u": toolUseBehavior is a function/,
    );
    expect(refusal(new S.Agent({ name: 's', modelSettings: { frequencyPenalty: 1 } }))).toMatch(
      /^fromOpenAIAgents: agent "s": modelSettings.frequencyPenalty has no Countersign counterpart/,
    );
    // A value the model-settings schema refuses, in the same one line (the contract's schema checks it, not a copy).
    expect(refusal(new S.Agent({ name: 'r', modelSettings: { reasoning: { effort: 'huge' as never } } }))).toMatch(
      /^fromOpenAIAgents: agent "r": .*reasoningEffort: Invalid option: expected one of "minimal"\|"low"\|"medium"\|"high"$/,
    );
    const hooked = new S.Agent({ name: 'h' });
    hooked.on('agent_start', () => undefined);
    expect(refusal(hooked)).toMatch(
      /^fromOpenAIAgents: agent "h": hooks \(agent.on\('agent_start'\)\) cannot be honoured/,
    );
    expect(refusal([new S.Agent({ name: 'twin' }), new S.Agent({ name: 'twin' })])).toBe(
      'fromOpenAIAgents: agent "twin": name is the name of two different agents: Countersign registers agents by name, so give each its own',
    );
    const target = new S.Agent({ name: 't' });
    const typed = S.handoff(target, {
      inputType: z.object({ why: z.string() }) as never,
      onHandoff: async () => undefined,
    });
    expect(refusal(new S.Agent({ name: 'i', handoffs: [typed] }))).toMatch(
      /^fromOpenAIAgents: agent "i": handoffs \("transfer_to_t"\) inputType cannot map/,
    );
    const shaped = target.asTool({
      toolName: 'ask_t',
      toolDescription: 'Ask',
      parameters: z.object({ q: z.string() }) as never,
    });
    expect(refusal(new S.Agent({ name: 'a', tools: [shaped] }))).toMatch(
      /^fromOpenAIAgents: agent "a": tool "ask_t" \(asTool parameters\) cannot map/,
    );
    const raising = S.tool({
      name: 'slow',
      description: 'Slow',
      parameters: params,
      timeoutMs: 10,
      timeoutBehavior: 'raise_exception',
      execute: () => 'x',
    });
    expect(refusal(new S.Agent({ name: 'r', tools: [raising] }))).toMatch(
      /^fromOpenAIAgents: agent "r": tool "slow" timeoutBehavior 'raise_exception' cannot map/,
    );
    const computer = S.computerTool({
      computer: { environment: 'browser', dimensions: [1024, 768] } as never,
    });
    expect(refusal(new S.Agent({ name: 'c', tools: [computer] }))).toMatch(
      /^fromOpenAIAgents: agent "c": tool "[^"]+" \(computer\) cannot map/,
    );
    expect(refusal([{ nope: true }])).toBe(
      'fromOpenAIAgents: expected @openai/agents Agent objects (each with a name); got an object without a name',
    );
  });
});

test('a SandboxAgent is refused in one line', () => {
  const { SandboxAgent } = require('@openai/agents-core/sandbox');
  expect(refusal(new SandboxAgent({ name: 'box', instructions: 'x' }))).toMatch(
    /^fromOpenAIAgents: agent "box": capabilities \(a SandboxAgent\) cannot map/,
  );
});

test('a JSON-schema output type is refused; a zod object output type maps', () => {
  const jsonOut = { type: 'json_schema', name: 'Out', strict: true, schema: { type: 'object', properties: {} } };
  expect(refusal(new sdk.Agent({ name: 'o', outputType: jsonOut as never }))).toMatch(
    /^fromOpenAIAgents: agent "o": outputType is not a zod \(4\) object schema/,
  );
  const [a] = fromOpenAIAgents(new sdk.Agent({ name: 'z', outputType: z.object({ answer: z.string() }) }));
  expect(a!.outputSchema).toMatchObject({ properties: { answer: { type: 'string' } } });
});
