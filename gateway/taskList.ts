// tasks/list for one principal: the gateway's MCP calls (runs of its workflow on its task queue whose id is a call's,
// gateway-<name>-<digest>, not a hook's or the approvals API's) that this principal started (the run's memo), from
// Temporal's visibility, newest first. The cursor is Temporal's page token: a page holds this principal's tasks among
// the runs read for it, so it may hold fewer than a full page, or none, and still have a next cursor, as the MCP spec
// allows (a client follows nextCursor until there is none). Visibility lags a started run by a moment.
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { HitlStatus } from '../contract/searchAttributes';
import { GATEWAY_WORKFLOW_TYPE } from '../core/run/gatewayRuns';
import { type CallRun, callIdPattern, isMcpTask } from './gatedCalls';
import type { GatewayCore } from './gatewayServer';

/** Runs read from visibility per page, and pages read for one tasks/list before it answers with what it found. */
const RUNS_PER_PAGE = 100;
const MAX_PAGES = 5;
const LIST_DEADLINE_MS = 10_000;

/**
 * Temporal's page token from a cursor this gateway gave, or a refusal at once. The server's tokens are JSON; a
 * cursor that is not sends nothing (the server would fail it, and the client retry that for a while).
 */
function pageToken(cursor: string): Uint8Array {
  const bytes = Buffer.from(cursor, 'base64url');
  try {
    if (bytes.length && typeof JSON.parse(bytes.toString('utf8')) === 'object') return bytes;
  } catch {
    // not JSON: not a cursor of ours
  }
  throw new Error(`cursor ${cursor.slice(0, 40)}: not one this gateway gave; list again without a cursor`);
}

export interface ListedTask {
  run: CallRun;
  status: Task['status'];
  /** Waiting for a person (input_required). */
  waiting: boolean;
  startTime: Date;
  closeTime?: Date;
}

const CLOSED: Record<string, Task['status']> = {
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  TERMINATED: 'cancelled',
};

export async function ownTasks(
  core: Pick<GatewayCore, 'client' | 'config' | 'taskQueue'>,
  principal: string,
  cursor?: string,
): Promise<{ runs: ListedTask[]; nextCursor?: string }> {
  const { client } = core;
  const callId = callIdPattern(core.config.name);
  const query = `WorkflowType = '${GATEWAY_WORKFLOW_TYPE}' AND TaskQueue = '${core.taskQueue}'`;
  let token: Uint8Array | undefined = cursor !== undefined ? pageToken(cursor) : undefined;
  const runs: ListedTask[] = [];
  for (let page = 0; page < MAX_PAGES && (page === 0 || token) && !runs.length; page++) {
    const request = {
      namespace: client.options.namespace,
      query,
      pageSize: RUNS_PER_PAGE,
      ...(token ? { nextPageToken: token } : {}),
    };
    // Bounded: the client retries what the server cannot answer, and a listing is not worth a long wait.
    const response = await client
      .withDeadline(Date.now() + LIST_DEADLINE_MS, () => client.workflowService.listWorkflowExecutions(request))
      .catch((err: Error) => {
        throw new Error(`Temporal did not list the gateway's calls: ${err.message.split('\n')[0]}`);
      });
    for (const raw of response.executions) {
      const info = await executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace);
      if (!callId.test(info.workflowId) || !isMcpTask(info.memo) || info.memo?.requester !== principal) continue;
      const open = info.status.name === 'RUNNING';
      const waiting = open && info.typedSearchAttributes.get(HitlStatus) === 'AwaitingApproval';
      runs.push({
        run: { workflowId: info.workflowId, runId: info.runId },
        status: open ? (waiting ? 'input_required' : 'working') : (CLOSED[info.status.name] ?? 'failed'),
        waiting,
        startTime: info.startTime,
        ...(info.closeTime ? { closeTime: info.closeTime } : {}),
      });
    }
    token = response.nextPageToken?.length ? response.nextPageToken : undefined;
  }
  return { runs, ...(token ? { nextCursor: Buffer.from(token).toString('base64url') } : {}) };
}
