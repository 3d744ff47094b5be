// What the grants suites share: the grant-mailer agent (tools that ask, one with a quorum, one with its own approvers,
// one that leaves the requester out, one that never asks), on a grants workflow of the suite's own that continues as
// new after 40 events; a grant request by someone, and runs of the agent whose first turn makes the given calls.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { grant, listGrants } from '../../client/grants/grantsClient';
import type { AgentRunResult } from '../../client/run/runner';
import { GRANTS_WORKFLOW_TYPE, type GrantView } from '../../contract/grantMessages';
import { newId } from './fixtures';
import { startHarness, type Harness } from './harness';

export const ran: string[] = [];
const tool = (name: string, parameters: z.ZodObject, more: Record<string, unknown> = {}) =>
  defineTool({
    name,
    description: name,
    parameters,
    needsApproval: true,
    execute: (args, ctx) => (ran.push(`${ctx.runId}:${ctx.callId}`), `${name} ${JSON.stringify(args)}`),
    ...more,
  });

const mailer = defineAgent({
  name: 'grant-mailer',
  instructions: 'test',
  tools: [
    tool('send_email', z.object({ to: z.string(), subject: z.string() })),
    tool('archive', z.object({ record_id: z.string() })),
    tool('notify', z.object({ channel: z.string() })),
    tool('wire_money', z.object({ amount: z.number() }), { quorum: 2, approvers: ['ann', 'bob', 'cy'] }),
    tool('pay', z.object({ amount: z.number() }), { approvers: ['cfo'] }),
    tool('expense', z.object({ amount: z.number() }), { approvers: ['cy', 'dan'], excludeRequester: true }),
    defineTool({
      name: 'lookup',
      description: 'lookup',
      parameters: z.object({ name: z.string() }),
      execute: () => 'found',
    }),
  ],
});

// Grants of its own: a unique grants workflow (on this file's task queue). The worker is given it; the client
// library and the CLI read it from COUNTERSIGN_GRANTS_WORKFLOW_ID, as a deployment would set it.
export const grantsId = newId('grants');
process.env.COUNTERSIGN_GRANTS_WORKFLOW_ID = grantsId;

/** The suite's harness, with the grants workflow started (firstRunId: its first run, before any continue-as-new). */
export async function startGrantMailer(): Promise<{ h: Harness; runner: Runner; firstRunId: string }> {
  const h = await startHarness({ registry: new AgentRegistry([mailer]), grantsWorkflowId: grantsId });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  // Started here with a small history limit, so every suite's tests also cross continue-as-new.
  const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
    workflowId: grantsId,
    taskQueue: h.taskQueue,
    args: [{ continueAsNewAfterEvents: 40 }],
  });
  return { h, runner, firstRunId: handle.firstExecutionRunId };
}

export const by = (grantedBy: string, more: Partial<Parameters<typeof grant>[2]> = {}) => ({
  agent: 'grant-mailer',
  tool: 'send_email',
  where: {},
  for: '1h',
  grantedBy,
  ...more,
});
export const waiting = (r: AgentRunResult) => r.interruptions.map((i) => i.callId);

/** Grants and runs on a suite's harness and runner (`at` gives them once beforeAll has started them). */
export function grantMailerRuns(at: () => { h: Harness; runner: Runner }) {
  const add = (request: Parameters<typeof grant>[2]) => grant(at().h.client, at().h.taskQueue, request);
  /** Starts a run whose first turn makes these calls (ids c0, c1, …); returns it paused or done. */
  async function runWith(
    calls: Array<[string, Record<string, unknown>]>,
    context?: Record<string, unknown>,
  ): Promise<AgentRunResult> {
    const { h, runner } = at();
    const workflowId = newId('granted');
    h.model.script(workflowId, [
      { toolCalls: calls.map(([name, args], i) => ({ name, arguments: args, callId: `c${i}` })) },
      { text: 'done' },
    ]);
    return runner.run('grant-mailer', 'go', { workflowId, ...(context ? { context } : {}) });
  }
  /** Rejects whatever still waits (as someone the tool allows), so the run ends. */
  async function finish(result: AgentRunResult, approver = 'ann'): Promise<void> {
    const { runner } = at();
    if (!result.interruptions.length) return;
    const state = result.toState();
    for (const i of result.interruptions) state.reject(i, { approver });
    expect((await runner.run('grant-mailer', state)).finalOutput).toBe('done');
  }
  const grantOf = async (id: string): Promise<GrantView | undefined> =>
    (await listGrants(at().h.client)).find((g) => g.id === id);
  return { add, runWith, finish, grantOf };
}
