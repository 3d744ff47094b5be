// AI SDK 7's approval rules through fromAiSdkTools, without a server: a tool's needsApproval, and toolApproval as a
// map of statuses or functions and as one function, with the AI SDK's precedence, as Countersign's predicate and
// onApproval (adapters/aiSdk/aiSdkApproval.ts).
import { dynamicTool, tool } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools } from '../../adapters/aiSdk';
import { ask, decide, one } from '../support/aiSdkTools';

describe('approval', () => {
  test("a tool's needsApproval: boolean as it is, a function gets the parsed input, toolCallId, messages, context", async () => {
    expect(one({ t: tool({ inputSchema: z.object({}), needsApproval: true, execute: () => 1 }) }).needsApproval).toBe(
      true,
    );
    const seen: unknown[] = [];
    const t = one({
      pay: tool({
        inputSchema: z.object({ amount: z.coerce.number() }),
        needsApproval: (input, options) => (seen.push(input, options), input.amount > 100),
        execute: () => 1,
      }),
    });
    expect(await ask(t, { amount: '500' }, 'c9')).toBe(true);
    expect(await ask(t, { amount: 5 })).toBe(false);
    expect(seen[0]).toEqual({ amount: 500 });
    expect(seen[1]).toEqual({ toolCallId: 'c9', messages: [], context: { team: 'ops' } });
    expect(t.onApproval).toBeUndefined();
  });

  test('toolApproval statuses in a map: approved / denied decided in code, user-approval asks, not-applicable wins', async () => {
    const gated = () => tool({ inputSchema: z.object({}), needsApproval: true, execute: () => 1 });
    const tools = { a: gated(), d: gated(), u: gated(), n: gated(), own: gated() };
    const [a, d, u, n, own] = fromAiSdkTools(tools, {
      toolApproval: {
        a: { type: 'approved', reason: 'fine' },
        d: { type: 'denied', reason: 'no' },
        u: 'user-approval',
        n: 'not-applicable',
      },
    });
    expect([a, d, u, n, own].map((t) => t!.needsApproval)).toEqual([true, true, true, false, true]);
    expect(await decide(a!, {})).toEqual({ approve: true, reason: 'fine' });
    expect(await decide(d!, {})).toEqual({ approve: false, reason: 'no', message: 'no' });
    expect(u!.onApproval).toBeUndefined();
    expect(own!.onApproval).toBeUndefined();
  });

  test('a toolApproval function is asked once per call: the predicate keeps its status for onApproval', async () => {
    let asked = 0;
    const t = one(
      { t: tool({ inputSchema: z.object({ n: z.number() }), execute: () => 1 }) },
      {
        toolApproval: ({ toolCall, runtimeContext, toolsContext, messages, tools }) => {
          asked++;
          expect(Object.keys(tools!)).toEqual(['t']);
          expect(toolsContext).toEqual({ t: { team: 'ops' } });
          expect(messages).toEqual([]);
          expect(runtimeContext).toEqual({ team: 'ops' });
          const n = (toolCall.input as { n: number }).n;
          return (['not-applicable', 'approved', 'denied', 'user-approval', undefined] as const)[n];
        },
      },
    );
    expect(await ask(t, { n: 0 })).toBe(false);
    expect(await ask(t, { n: 4 })).toBe(false); // undefined is not-applicable
    for (const [n, verdict] of [
      [1, { approve: true }],
      [2, { approve: false }],
      [3, undefined],
    ] as const) {
      const before = asked;
      expect(await ask(t, { n }, `call-${n}`)).toBe(true);
      expect(await decide(t, { n }, `call-${n}`)).toEqual(verdict);
      expect(asked - before).toBe(1);
    }
  });

  test("the toolApproval function gets the call as the AI SDK's TypedToolCall (dynamic for a dynamicTool)", async () => {
    const calls: unknown[] = [];
    const tools = {
      d: dynamicTool({ inputSchema: z.object({ n: z.number() }), execute: async () => 1 }),
      s: tool({ inputSchema: z.object({ n: z.number() }), execute: async () => 1 }),
    };
    const [d, s] = fromAiSdkTools(tools, { toolApproval: ({ toolCall }) => (calls.push(toolCall), 'user-approval') });
    await ask(d!, { n: 1 }, 'cd');
    await ask(s!, { n: 2 }, 'cs');
    expect(calls).toEqual([
      { type: 'tool-call', toolCallId: 'cd', toolName: 'd', input: { n: 1 }, dynamic: true },
      { type: 'tool-call', toolCallId: 'cs', toolName: 's', input: { n: 2 } },
    ]);
    expect(await decide(d!, { n: 1 }, 'cd')).toBeUndefined();
  });

  test('a status that is none of the four makes the predicate throw (Countersign then asks a person)', async () => {
    const t = one(
      { t: tool({ inputSchema: z.object({}), execute: () => 1 }) },
      { toolApproval: () => 'maybe' as never },
    );
    const none = one(
      { t: tool({ inputSchema: z.object({}), execute: () => 1 }) },
      { toolApproval: () => null as never },
    );
    await expect(ask(none, {})).rejects.toThrow('toolApproval for tool t answered null, not a status');
    await expect(ask(t, {})).rejects.toThrow(
      "toolApproval for tool t answered 'maybe', not a status ('not-applicable', 'approved', 'denied', 'user-approval' or { type, reason }): a person decides",
    );
  });

  test("a tool's needsApproval that answers anything but a boolean is refused (Countersign then asks a person)", async () => {
    const t = one({ t: tool({ inputSchema: z.object({}), needsApproval: () => 'no' as never, execute: () => 1 }) });
    await expect(ask(t, {})).rejects.toThrow("needsApproval answered 'no', not a boolean: a person decides");
  });
});
