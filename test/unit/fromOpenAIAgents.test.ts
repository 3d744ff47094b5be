// fromOpenAIAgents without a server, on agents built with the SDK's own classes (0.20 here, and 0.11.8 from
// bench/alternatives where it is installed): what each agent maps to, and that the SDK's functions are called with a
// RunContext over the run's context. Its refusals: openaiAgentsRefusals.test.ts.
import * as sdk from '@openai/agents';
import { fromOpenAIAgents } from '../../adapters/openaiAgents';
import type { ConversationItem } from '../../contract/items';
import { amountParameters as params, callContexts, refusal, sdkVersions as versions } from '../support/agentsSdk';

const { ctx, plan } = callContexts('desk', { tenant: 'acme' });

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
});
