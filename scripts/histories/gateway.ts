// Replay-corpus scenario: a gated MCP call (`countersign gateway`), its own workflow type countersignGatewayCall
// (workflows/gatewayCall.ts). It books the one call, waits for a person, and once approved sends it upstream in one
// activity; this history proves a run recorded today replays after later changes. The call is started as the gateway
// starts it (its input and memo), on a harness of its own whose worker has the gateway's upstream-call activity.
import { createGatewayActivities } from '../../activities/gatewayTool';
import { GATEWAY_CALL_ID, GATEWAY_WORKFLOW_TYPE, type GatewayCallInput } from '../../core/run/gatewayRuns';
import { DEFAULT_REJECTION } from '../../activities/callPlanning';
import { onOwnHarness, untilCallPending, type Scenarios } from './common';

export const gatewayScenarios: Scenarios = {
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
};
