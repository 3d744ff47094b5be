// fromOpenAIAgents without a server, on agents built with the SDK's own classes (0.20 here, and 0.11.8 from
// bench/alternatives where it is installed): what each agent maps to, that the SDK's functions are called with a
// RunContext over the run's context, and that each thing Countersign cannot honour is refused in one line naming the agent and the field.
import * as sdk from '@openai/agents';
import { z } from 'zod';
import { fromOpenAIAgents, UnmappableAgentError } from '../../adapters/openaiAgents';
import type { ConversationItem } from '../../contract/items';
import { callContexts, sdkVersions } from '../support/agentsSdkVersions';

const { ctx, plan } = callContexts('desk', { tenant: 'acme' });
const versions = sdkVersions;
const params = {
  type: 'object' as const,
  properties: { amount: { type: 'number' } },
  required: ['amount'],
  additionalProperties: false as const,
};

/** The one line fromOpenAIAgents throws for these agents. */
function refusal(agents: unknown): string {
  try {
    fromOpenAIAgents(agents as never);
  } catch (e) {
    expect(e).toBeInstanceOf(UnmappableAgentError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('not refused');
}

describe.each(versions)('fromOpenAIAgents with @openai/agents %s', (_version, S) => {
  const seen: unknown[] = [];
  const pay = S.tool({
    name: 'pay',
    description: 'Pays',
    parameters: params,
    strict: true,
    timeoutMs: 1500,
    needsApproval: async (rc, input: unknown, callId) => {
      seen.push(['approval', rc.context, input, callId, rc instanceof sdk.RunContext]);
      return (input as { amount: number }).amount > 100;
    },
    execute: async (input, rc, details) => {
      seen.push(['execute', input, (rc?.context as { tenant: string }).tenant, details?.toolCall?.callId]);
      return 'paid';
    },
  });

  test('a function tool keeps its schema, strictness and timeout; needsApproval and invoke get a RunContext', async () => {
    seen.length = 0;
    const [agent] = fromOpenAIAgents(new S.Agent({ name: 'desk', instructions: 'Pay.', tools: [pay] }));
    const tool = agent!.tool('pay')!;
    expect(tool.jsonSchema).toMatchObject({ properties: { amount: { type: 'number' } }, required: ['amount'] });
    expect(tool.strictSchema).toBeDefined();
    expect(tool.timeout).toBe('1500ms');
    const predicate = tool.needsApproval as (c: typeof plan, p: unknown, id: string) => Promise<boolean>;
    expect(await predicate(plan, { amount: 500 }, 'c1')).toBe(true);
    expect(await predicate(plan, { amount: 5 }, 'c2')).toBe(false);
    expect(await tool.execute!({ amount: 5 }, ctx)).toBe('paid');
    expect(seen).toEqual([
      ['approval', { tenant: 'acme' }, { amount: 500 }, 'c1', true],
      ['approval', { tenant: 'acme' }, { amount: 5 }, 'c2', true],
      ['execute', { amount: 5 }, 'acme', 'c1'],
    ]);
    expect(agent!.snapshot().tools[0]).toMatchObject({ name: 'pay', approval: 'predicate', strict: true });
  });

  test('handoffs and asTool() agents are walked once each (a cycle too), under their own names', () => {
    const inner = new S.Agent({ name: 'inner', instructions: 'Inner.' });
    const back = new S.Agent({ name: 'back', instructions: 'Back.', handoffDescription: 'goes back' });
    const front = new S.Agent({
      name: 'front',
      instructions: 'Front.',
      handoffs: [back, S.handoff(inner, { toolNameOverride: 'go_inner', toolDescriptionOverride: 'Inner stuff' })],
      tools: [inner.asTool({ toolName: 'ask_inner', toolDescription: 'Ask inner' })],
    });
    back.handoffs = [front];
    const agents = fromOpenAIAgents(front);
    expect(agents.map((a) => a.name)).toEqual(['front', 'inner', 'back']);
    const f = agents[0]!;
    expect(f.tools.map((t) => [t.name, t.subAgent ?? t.handoffTo])).toEqual([
      ['ask_inner', 'inner'],
      ['transfer_to_back', 'back'],
      ['go_inner', 'inner'],
    ]);
    expect(f.tool('transfer_to_back')!.description).toBe('Handoff to the back agent to handle the request. goes back');
    expect(f.tool('go_inner')!.description).toBe('Inner stuff');
    expect(agents[2]!.tools.map((t) => t.name)).toEqual(['transfer_to_front']);
  });

  test('instructions functions, guardrails and settings map', async () => {
    const agent = new S.Agent({
      name: 'tuned',
      instructions: (rc, a) => `${a.name} for ${(rc.context as { tenant: string }).tenant}`,
      modelSettings: { temperature: 0.2, maxTokens: 300, reasoning: { effort: 'low' }, toolChoice: 'auto' },
      model: 'gpt-4.1-mini',
      toolUseBehavior: { stopAtToolNames: ['pay'] },
      resetToolChoice: false,
      tools: [pay],
      inputGuardrails: [
        {
          name: 'no secrets!',
          execute: async ({ input, context }) => ({
            tripwireTriggered: String(input).includes('secret'),
            outputInfo: context.context,
          }),
        },
      ],
    });
    const [a] = fromOpenAIAgents(agent);
    const instructions = a!.instructions as (c: unknown) => Promise<string>;
    expect(await instructions({ context: { tenant: 'acme' }, agentName: 'tuned', workflowId: 'w' })).toBe(
      'tuned for acme',
    );
    expect(a!.model).toBe('gpt-4.1-mini');
    expect(a!.modelSettings).toEqual({
      temperature: 0.2,
      maxOutputTokens: 300,
      reasoningEffort: 'low',
      toolChoice: 'auto',
    });
    expect(a!.snapshot()).toMatchObject({ toolUseBehavior: { stopAtToolNames: ['pay'] }, resetToolChoice: false });
    const g = a!.inputGuardrails![0]!;
    expect(g.name).toBe('no_secrets_');
    expect(await g.execute({ input: 'a secret', context: { tenant: 'acme' }, agent: a! })).toEqual({
      tripwireTriggered: true,
      outputInfo: { tenant: 'acme' },
    });
  });

  test("the SDK's stored flags: a boolean needsApproval is a plain rule, isEnabled false drops the tool or handoff, a function of the run refuses calls it disables", async () => {
    const t = (name: string, extra: object) =>
      S.tool({ name, description: name, parameters: params, execute: () => 'ok', ...extra });
    const other = new S.Agent({ name: 'other' });
    const [a] = fromOpenAIAgents(
      new S.Agent({
        name: 'flags',
        tools: [
          t('always', { needsApproval: true }),
          t('never', {}),
          t('off', { isEnabled: false }),
          t('maybe', {
            isEnabled: ({ runContext }: { runContext: { context: { on?: boolean } } }) => !!runContext.context.on,
          }),
        ],
        handoffs: [S.handoff(other, { isEnabled: false })],
      }),
    );
    expect(a!.snapshot().tools.map((x) => [x.name, x.approval])).toEqual([
      ['always', 'always'],
      ['never', 'never'],
      ['maybe', 'never'],
    ]);
    const guard = a!.tool('maybe')!.inputGuardrails![0]!;
    const data = (context: object) => ({
      arguments: { amount: 1 },
      toolCall: { callId: 'c1', name: 'maybe', arguments: '{"amount":1}' },
      context: context as Record<string, unknown>,
      agentName: 'flags',
      runId: 'r',
    });
    expect(await guard.run(data({ on: true }))).toEqual({ behavior: { type: 'allow' } });
    expect(await guard.run(data({}))).toEqual({
      behavior: { type: 'rejectContent', message: 'Tool maybe is not enabled.' },
    });
    // A team's own function of no arguments is never called to read it: it stays a predicate, asked in planning.
    let asked = 0;
    const [own] = fromOpenAIAgents(
      new S.Agent({ name: 'own-rule', tools: [t('mine', { needsApproval: async () => (asked++, true) })] }),
    );
    expect([asked, own!.snapshot().tools[0]!.approval]).toEqual([0, 'predicate']);
    const gated = S.handoff(other, { isEnabled: () => true });
    expect(refusal(new S.Agent({ name: 'g', handoffs: [gated] }))).toMatch(
      /^fromOpenAIAgents: agent "g": handoffs \("transfer_to_other"\) isEnabled is a function/,
    );
  });

  test("tool guardrails, output guardrails and a handoff's own inputFilter get the SDK's shapes", async () => {
    const calls: unknown[] = [];
    const checked = S.tool({
      name: 'checked',
      description: 'checked',
      parameters: params,
      execute: () => 'ok',
      inputGuardrails: [
        S.defineToolInputGuardrail({
          name: 'small',
          run: async ({ context, toolCall }) => {
            calls.push(['in', context.context, toolCall.type, toolCall.callId, JSON.parse(toolCall.arguments)]);
            return S.ToolGuardrailFunctionOutputFactory.rejectContent('too much');
          },
        }),
      ],
      outputGuardrails: [
        S.defineToolOutputGuardrail({
          name: 'clean',
          run: async ({ output }) => {
            calls.push(['out', output]);
            return S.ToolGuardrailFunctionOutputFactory.allow();
          },
        }),
      ],
    });
    const next = new S.Agent({ name: 'next' });
    const agent = new S.Agent({
      name: 'guarded',
      tools: [checked],
      outputGuardrails: [
        {
          name: 'final',
          execute: async ({ agentOutput }) => ({ tripwireTriggered: agentOutput === 'bad', outputInfo: null }),
        },
      ],
      handoffs: [
        S.handoff(next, {
          inputFilter: (data) => {
            calls.push(['filter', (data.inputHistory as Array<{ type: string }>).map((i) => i.type)]);
            return { ...data, inputHistory: [{ role: 'user', content: 'summary' }] };
          },
        }),
      ],
    });
    const [a] = fromOpenAIAgents(agent);
    const tool = a!.tool('checked')!;
    const data = {
      arguments: { amount: 3 },
      toolCall: { callId: 'c9', name: 'checked', arguments: '{"amount":3}' },
      context: { tenant: 'acme' },
      agentName: 'guarded',
      runId: 'r',
    };
    expect(await tool.inputGuardrails![0]!.run(data)).toMatchObject({
      behavior: { type: 'rejectContent', message: 'too much' },
    });
    expect(await tool.outputGuardrails![0]!.run({ ...data, output: 'ok' })).toMatchObject({
      behavior: { type: 'allow' },
    });
    expect(await a!.outputGuardrails![0]!.execute({ agentOutput: 'bad', context: {}, agent: a! })).toMatchObject({
      tripwireTriggered: true,
    });
    const filter = a!.handoff!('transfer_to_next')!.inputFilter as (d: object) => Promise<ConversationItem[]>;
    const history: ConversationItem[] = [
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'function_call', callId: 'h1', name: 'transfer_to_next', arguments: '{}' },
    ];
    expect(await filter({ inputHistory: history, context: {}, fromAgent: 'guarded', toAgent: 'next' })).toEqual([
      { type: 'message', role: 'user', content: 'summary' },
    ]);
    expect(calls).toEqual([
      ['in', { tenant: 'acme' }, 'function_call', 'c9', { amount: 3 }],
      ['out', 'ok'],
      ['filter', ['message', 'function_call']],
    ]);
  });

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
