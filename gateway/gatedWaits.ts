// A gated call for a client that did not ask for a task: the request stays open while a person decides, with
// notifications/progress every PROGRESS_EVERY_MS when the client gave a progress token, until the run ends or the
// gateway's --wait passes. Then the client gets an isError result saying who decides, where, and to call again
// with the same arguments: that call joins the same run (gatedCalls.ts), so nothing is asked or run twice.
import type { CallToolResult, ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PendingApproval } from '../contract/runViews';
import { GATEWAY_CALL_ID } from '../core/run/gatewayRuns';
import { type CallRun, callResult, taskStatus } from './gatedCalls';
import type { GatewayCore } from './gatewayServer';

export const PROGRESS_EVERY_MS = 15_000;

/** Who decides a waiting call, and where: the inbox's page of the run where there is one, and the CLI. */
export function whereToDecide(core: Pick<GatewayCore, 'inboxUrl'>) {
  return (run: CallRun, call?: PendingApproval): string => {
    const who = call?.approvers?.length ? call.approvers.join(' or ') : 'an approver';
    const inbox = core.inboxUrl
      ? `in the inbox at ${core.inboxUrl.replace(/\/$/, '')}/runs/${run.workflowId}, or `
      : '';
    return `waiting for ${who} to approve: ${inbox}with \`countersign approve ${run.workflowId} ${GATEWAY_CALL_ID}\``;
  };
}

export async function waitForDecision(
  core: GatewayCore,
  run: CallRun,
  tool: string,
  progressToken: ProgressToken | undefined,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CallToolResult> {
  const handle = core.client.workflow.getHandle(run.workflowId, run.runId);
  const stop = new AbortController(); // the run's long poll ends with this wait, not with the run
  const ended = core.client
    .withAbortSignal(stop.signal, () => handle.result())
    .then(
      () => true,
      () => !stop.signal.aborted,
    );
  try {
    return await waitOn(core, run, tool, progressToken, extra, ended);
  } finally {
    stop.abort();
  }
}

async function waitOn(
  core: GatewayCore,
  run: CallRun,
  tool: string,
  progressToken: ProgressToken | undefined,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ended: Promise<boolean>,
): Promise<CallToolResult> {
  const started = Date.now();
  let progress = 0;
  for (;;) {
    const left = core.waitMs - (Date.now() - started);
    if (left <= 0 || extra.signal.aborted) break;
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.min(left, PROGRESS_EVERY_MS));
    });
    const done = await Promise.race([ended, tick]);
    clearTimeout(timer);
    if (done) {
      core.owed.collect(run);
      return callResult(core.client, run);
    }
    if (progressToken !== undefined && !extra.signal.aborted)
      await extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, message: `${tool} is ${await stillWaiting(core, run)}` },
        })
        .catch(() => undefined);
  }
  const where = await stillWaiting(core, run);
  return {
    content: [
      {
        type: 'text',
        text: `${tool} needs a person's approval and is not decided yet (${where}). Call ${tool} again with the same arguments to get its result once it is decided: that call joins this one, nothing runs twice.`,
      },
    ],
    isError: true,
  };
}

/** What the run waits for now, in a few words. */
async function stillWaiting(core: GatewayCore, run: CallRun): Promise<string> {
  const s = await taskStatus(core.client, run, whereToDecide(core)).catch(() => undefined);
  if (s?.status === 'input_required') return s.statusMessage!;
  return s?.status === 'working' ? 'running upstream' : 'still being decided';
}
