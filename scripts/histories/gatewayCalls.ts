// Replay-corpus scenarios of the gateway's gated calls (workflows/gatewayCall.ts). 'gateway-call': an MCP call, as the
// gateway starts it, approved and sent upstream once by the activity (on a harness whose worker has the gateway's
// upstream-call activity). The others: an ask-only call, as a coding agent's hook or the approvals API books it, on a
// gateway of its own (its worker runs the run and its activity).
// 'gateway-ask-only-approved' was recorded before change countersign-call-outcomes: approved, the run ended at once.
// 'gateway-call-outcome' after it: approved, the run stays open for the caller's outcome, which it audits.
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { startGateway } from '../../gateway/gatewayProcess';
import { termsOf } from '../../gateway/gating';
import { createGatewayActivities } from '../../activities/gatewayTool';
import { DEFAULT_REJECTION } from '../../activities/callPlanning';
import {
  ASK_ONLY_SERVER,
  GATEWAY_CALL_ID,
  GATEWAY_WORKFLOW_TYPE,
  type GatewayCallInput,
} from '../../core/run/gatewayRuns';
import { eventually } from '../../test/support/fixtures';
import { freePort } from '../../test/support/processes';
import type { Harness } from '../../test/support/harness';
import type { Runner } from '../../client';
import { onOwnHarness, untilCallPending, type Scenarios } from './common';

/** A gateway named `name` on the recording server; `body` runs while it serves. */
async function onGateway(name: string, body: (taskQueue: string) => Promise<void>) {
  const gateway = await startGateway({
    config: parseGatewayConfig({ name, servers: {}, hooks: { rules: [], otherwise: 'allow' } }),
    port: await freePort(),
    env: { ...process.env, TEMPORAL_ADDRESS: process.env.COUNTERSIGN_TEST_ADDRESS, COUNTERSIGN_LEDGER_URL: 'off' },
    log: () => undefined,
  });
  try {
    await body(gateway.taskQueue);
  } finally {
    await gateway.close();
  }
}

/** A Bash call a hook asked about, as hookCalls.ts starts it. */
const bashCall = (taskQueue: string): GatewayCallInput => ({
  gateway: 'history-hooks',
  requester: 'dev',
  server: ASK_ONLY_SERVER,
  upstreamTool: 'Bash',
  tool: {
    name: 'Bash',
    description: "Bash, asked by a coding agent's hook",
    parameters: { type: 'object' },
    approval: 'always',
  },
  arguments: JSON.stringify({ command: 'rm -rf build', cwd: '/repo', session: 's1' }),
  wait: termsOf({ gated: true, policy: {} }, 'dev', false),
  rejectionText: 'The user rejected this tool call.',
  taskQueue,
});

async function approvedCall(h: Harness, runner: Runner, id: string, after: (id: string) => Promise<void>) {
  await onGateway('history-hooks', async (taskQueue) => {
    await h.client.workflow.start(GATEWAY_WORKFLOW_TYPE, { workflowId: id, taskQueue, args: [bashCall(taskQueue)] });
    await untilCallPending(runner, id, 'call');
    await runner.decide(id, [{ callId: 'call', decision: 'approve', approver: 'lead' }]);
    await after(id);
    await h.client.workflow.getHandle(id).result();
  });
}

export const gatewayCallScenarios: Scenarios = {
  // write_file from ann, approved by lead: the upstream is called once with the arguments and its result is the run's.
  'gateway-call': async (h, runner, id) => {
    const upstream = createGatewayActivities(async (req) => ({
      content: [{ type: 'text', text: `wrote ${(req.arguments as { path: string }).path}` }],
    }));
    await onOwnHarness(
      async (own) => {
        const args = { path: '/srv/shared/notes.txt', content: 'hello' };
        const input: GatewayCallInput = {
          gateway: 'email-assistant', // the gateway's name is its calls' agent (a corpus agent here)
          requester: 'ann',
          server: 'fs',
          upstreamTool: 'write_file',
          tool: {
            name: 'write_file',
            description: 'Write a file',
            parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
            approval: 'always',
          },
          arguments: JSON.stringify(args),
          wait: { approvers: ['lead'] },
          rejectionText: DEFAULT_REJECTION,
          taskQueue: own.taskQueue,
        };
        const handle = await h.client.workflow.start(GATEWAY_WORKFLOW_TYPE, {
          workflowId: id,
          taskQueue: own.taskQueue,
          args: [input],
          memo: { requester: 'ann' },
        });
        await untilCallPending(runner, id, GATEWAY_CALL_ID);
        await runner.decide(id, [{ callId: GATEWAY_CALL_ID, decision: 'approve', approver: 'lead' }]);
        await handle.result();
      },
      { workerOptions: { activities: upstream } }, // the demo agents: email-assistant among them
    );
  },
  // Approved; before countersign-call-outcomes the run ends with its answer (after it, nothing closes its window).
  'gateway-ask-only-approved': async (h, runner, id) => {
    await approvedCall(h, runner, id, async () => undefined);
  },
  // Approved, answered while the run stays open, then the caller's outcome: audited, and the run ends.
  'gateway-call-outcome': async (h, runner, id) => {
    await approvedCall(h, runner, id, async () => {
      const handle = h.client.workflow.getHandle(id);
      await eventually(async () => ((await handle.query('countersignGatewayAnswer')) ? true : undefined));
      await handle.executeUpdate('countersignCallOutcome', {
        args: [{ outcome: { exitCode: 0, text: 'removed build/' } }],
      });
    });
  },
};
