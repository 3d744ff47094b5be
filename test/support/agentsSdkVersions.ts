// The Agents SDK versions the adapter's unit tests build their agents with (0.20 here, and 0.11.8 from
// bench/alternatives where `npm run bench -- alternatives` installed it), and the tool and planning contexts they
// call the mapped tools with.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from '@openai/agents';
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
