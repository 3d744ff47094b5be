// The one activity of a gated MCP call (workflows/gatewayCall.ts): the approved call, sent to its upstream once.
// The gateway process registers it on its own worker, with its open upstream connections (the call function);
// the workflow knows it only by type. A JSON-RPC error the upstream answers (unknown tool, bad params) is a result
// with isError: nothing ran. A connection that fails or times out throws: the call may have run, and the workflow
// makes it `uncertain` for a person (it has one attempt). The call is given the activity's cancellation, so a call
// the client withdraws while it runs upstream as a task is cancelled there (gateway/upstreamTasks.ts).
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Failure } from '../contract/failureTypes';
import type { GatewayToolRequest, GatewayToolResult } from '../core/run/gatewayRuns';
import { beatWhileRunning } from './toolExecution';

export type UpstreamCall = (req: GatewayToolRequest, signal: AbortSignal) => Promise<GatewayToolResult>;

/** The upstream could not be reached, so nothing was sent: the call surely did not run. */
export class UpstreamUnavailable extends Error {
  override name = 'UpstreamUnavailable';
}

export function createGatewayActivities(call: UpstreamCall) {
  return {
    async callGatewayTool(req: GatewayToolRequest): Promise<GatewayToolResult> {
      const stopBeating = beatWhileRunning();
      try {
        return await call(req, Context.current().cancellationSignal);
      } catch (err) {
        if (err instanceof UpstreamUnavailable)
          throw ApplicationFailure.create({ type: Failure.ToolUnavailable, message: err.message, nonRetryable: true });
        if (err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed)
          return { content: [{ type: 'text', text: `${req.tool}: ${err.message}` }], isError: true };
        throw err;
      } finally {
        stopBeating();
      }
    },
  };
}

export type GatewayActivities = ReturnType<typeof createGatewayActivities>;
