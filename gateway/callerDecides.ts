// Elicitation: a tool whose terms name "$caller" among its approvers may be decided by the MCP client's own user.
// When that client declared elicitation, a call that is not a task asks its user in the client (form mode: approve or
// reject, and an optional message) and the answer is sent as that principal's decision through the run's one intake
// (the `decide` update, audited as them). Declined is a rejection; dismissed (cancel) leaves the call waiting for
// anyone else who may decide it.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { buildDecision } from '../client/approvals/decisionBuilder';
import { decideOnce } from '../client/run/runUpdates';
import { GATEWAY_CALL_ID } from '../core/run/gatewayRuns';
import type { CallRun } from './gatedCalls';
import type { GatewayCore } from './gatewayServer';

/** The approver name in a tool's terms that stands for whoever calls it. */
export const CALLER = '$caller';

/** The approvers with "$caller" as the calling principal. */
export function callerNamed(approvers: string[] | undefined, principal: string): string[] | undefined {
  return approvers?.map((a) => (a === CALLER ? principal : a));
}

export async function askCaller(
  core: GatewayCore,
  run: CallRun,
  call: { tool: string; arguments: unknown; principal: string },
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<void> {
  const answer = await extra.sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `${call.tool} needs your approval (as ${call.principal}): ${JSON.stringify(call.arguments)}`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
            message: { type: 'string', title: 'Message (optional): why, for the record' },
          },
          required: ['decision'],
        },
      },
    },
    ElicitResultSchema,
    { timeout: core.waitMs },
  );
  if (answer.action === 'cancel') return;
  const approve = answer.action === 'accept' && answer.content?.decision === 'approve';
  const message = typeof answer.content?.message === 'string' ? answer.content.message.trim() : '';
  const decision = buildDecision({
    callId: GATEWAY_CALL_ID,
    decision: approve ? 'approve' : 'reject',
    approver: call.principal,
    reason: answer.action === 'decline' ? 'declined in the MCP client' : 'answered in the MCP client',
    ...(message ? { message } : {}),
  });
  await decideOnce(core.client, run.workflowId, [decision]);
}
