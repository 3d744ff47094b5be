// A gated call for a client that did not ask for a task: the request stays open while a person decides, with
// notifications/progress every PROGRESS_EVERY_MS when the client gave a progress token, until the run ends or the
// gateway's --wait passes. Then the client gets an isError result saying who decides, where, and to call again
// with the same arguments: that call joins the same run (gatedCalls.ts), so nothing is asked or run twice.
import { type CallToolResult, ElicitResultSchema, type ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PendingApproval } from '../contract/runViews';
import { GATEWAY_CALL_ID } from '../core/run/gatewayRuns';
import { type CallRun, callResult, taskStatus } from './gatedCalls';
import type { GatewayCore } from './gatewayServer';

export const PROGRESS_EVERY_MS = 15_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The call's page in the inbox (COUNTERSIGN_PUBLIC_URL), where its approvers decide it; none without an inbox. */
export const inboxPageOf = (core: Pick<GatewayCore, 'inboxUrl'>, run: CallRun): string | undefined =>
  core.inboxUrl ? `${core.inboxUrl.replace(/\/$/, '')}/runs/${encodeURIComponent(run.workflowId)}` : undefined;

/**
 * Who decides a waiting call, and where: the inbox's page of the run where there is one, and the CLI, with `--as`
 * when the terms name approvers (the CLI's default, the OS user, would be refused).
 */
export function whereToDecide(core: Pick<GatewayCore, 'inboxUrl'>) {
  return (run: CallRun, call?: PendingApproval): string => {
    const named = call?.approvers ?? [];
    const who = named.length ? named.join(' or ') : 'an approver';
    const as = named.length === 1 ? ` --as ${named[0]}` : named.length ? ` --as <one of ${named.join(', ')}>` : '';
    const page = inboxPageOf(core, run);
    const inbox = page ? `in the inbox at ${page}, or ` : '';
    return `waiting for ${who} to approve: ${inbox}with \`countersign approve ${run.workflowId} ${GATEWAY_CALL_ID}${as}\``;
  };
}

/**
 * URL-mode elicitation, for a client that supports it when someone else decides: the client shows its user the
 * call's inbox page (to open, or to pass to an approver). Not awaited: the call waits on its run, not on the user.
 */
export function showInboxPage(core: GatewayCore, run: CallRun, tool: string, extra: Extra): void {
  const url = inboxPageOf(core, run);
  if (!url) return;
  void extra
    .sendRequest(
      {
        method: 'elicitation/create',
        params: {
          mode: 'url',
          elicitationId: `${run.workflowId}:${run.runId}`,
          url,
          message: `${tool} waits for ${whereToDecide(core)(run).replace(/^waiting for /, '')}`,
        },
      },
      ElicitResultSchema,
      { timeout: core.waitMs },
    )
    .catch(() => undefined); // declined, dismissed or unanswered: the call waits on all the same
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
