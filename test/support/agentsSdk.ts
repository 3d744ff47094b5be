// What the Agents SDK adapter's unit tests share: the SDK versions they build agents with (0.20 here, and 0.11.8 from
// bench/alternatives where `npm run bench -- alternatives` installed it), the tool and planning contexts they call
// the mapped tools with, a function tool's JSON-schema parameters, and the one line fromOpenAIAgents refuses with.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from '@openai/agents';
import { fromOpenAIAgents, UnmappableAgentError } from '../../adapters/openaiAgents';
import type { ToolContext } from '../../agents/defineTool';

const OLD = join(__dirname, '../../bench/alternatives/node_modules/@openai/agents');

/** [version, the SDK module]: for describe.each. */
export const sdkVersions: Array<[string, typeof sdk]> = [
  ['0.20', sdk],
  ...(existsSync(OLD) ? [['0.11.8', require(OLD)] as [string, typeof sdk]] : []),
];

/** A tool activity's context (`ctx`) and a planning context (`plan`) for call c1 of run-1 of `agentName`. */
export function callContexts(agentName: string, context: Record<string, unknown>) {
  const ctx: ToolContext = {
    runId: 'run-1',
    agentName,
    callId: 'c1',
    idempotencyKey: 'run-1:c1',
    context,
    sensitive: {},
  };
  return { ctx, plan: { runId: 'run-1', agentName, callId: 'c1', context } };
}

/** A function tool's JSON-schema parameters: one number, `amount`. */
export const amountParameters = {
  type: 'object' as const,
  properties: { amount: { type: 'number' } },
  required: ['amount'],
  additionalProperties: false as const,
};

/** The one line fromOpenAIAgents throws for these agents (one line, an UnmappableAgentError). */
export function refusal(agents: unknown): string {
  try {
    fromOpenAIAgents(agents as never);
  } catch (e) {
    expect(e).toBeInstanceOf(UnmappableAgentError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('not refused');
}
