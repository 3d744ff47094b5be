// The HTTP approvals API (`/v1/approval-requests`): any program asks a person and waits for the answer. A request is
// a gated call like a hook's (ASK_ONLY_SERVER: the run calls nothing; approved, it answers with the approved
// arguments, edited perhaps). Its id is the run's workflow id, a digest of the requester and the Idempotency-Key, so
// posting again with the key finds the same request; the same key with another body is refused. The gateway's config
// terms for the tool (tools[tool], else tools["*"]) override the terms a request brings: a caller cannot loosen them.
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { DEFAULT_REJECTION } from '../activities/callPlanning';
import { Failure } from '../contract/failureTypes';
import type { AuditEntry } from '../contract/runViews';
import {
  ASK_ONLY_SERVER,
  GATEWAY_WORKFLOW_TYPE,
  type GatewayCallInput,
  type GatewayRunResult,
} from '../core/run/gatewayRuns';
import { canonical } from './gatedCalls';
import { whereToDecide } from './gatedWaits';
import { toolTermsSchema } from './gatewayConfig';
import type { GatewayCore } from './gatewayServer';
import { termsOf } from './gating';
import { answeredWithin, pendingCall } from './hookCalls';

export const APPROVAL_REQUESTS_PATH = '/v1/approval-requests';
/** The longest long poll a GET may ask for (?wait=, seconds). */
export const MAX_POLL_SECONDS = 60;

const requestSchema = z.strictObject({
  tool: z
    .string({ error: 'must be the name of what is to be done, such as "deploy"' })
    .regex(/^[\w.:-]{1,128}$/, 'must be a name of letters, digits, _ . : - (up to 128)'),
  arguments: z.record(z.string(), z.unknown(), { error: 'must be an object: what the person approves' }),
  summary: z.string().min(1).max(500, 'must be at most 500 characters').optional(),
  terms: toolTermsSchema.optional(),
});

export type Reply = { status: number; body: Record<string, unknown> };
const refuse = (status: number, error: string): Reply => ({ status, body: { error } });

const digest = (value: unknown) => createHash('sha256').update(canonical(value)).digest('hex').slice(0, 32);
/** The run ids of a gateway's approval requests start with this (its hook calls' and MCP calls' do not). */
export const requestIdPrefix = (gateway: string) => `gateway-${gateway}-api-`;
const idPrefix = (core: GatewayCore) => requestIdPrefix(core.config.name);
/** Whether `id` names one of this gateway's approval requests (a plain name with its prefix). */
export const isRequestId = (core: GatewayCore, id: string) => /^[\w.-]+$/.test(id) && id.startsWith(idPrefix(core));

function linksOf(core: GatewayCore, id: string) {
  return {
    self: `${APPROVAL_REQUESTS_PATH}/${id}`,
    ...(core.inboxUrl ? { inbox: `${core.inboxUrl.replace(/\/$/, '')}/runs/${id}` } : {}),
  };
}

/** POST /v1/approval-requests: books the request (201), or finds the one this Idempotency-Key booked (200). */
export async function createApprovalRequest(
  core: GatewayCore,
  requester: string,
  key: string | undefined,
  body: unknown,
): Promise<Reply> {
  if (!key || !/^[\x21-\x7e]{1,200}$/.test(key))
    return refuse(400, 'Idempotency-Key: send a header of 1 to 200 visible characters, unique per request');
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(422, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const { tool, arguments: args, summary, terms = {} } = parsed.data;
  const summarised = summary !== undefined && !Object.hasOwn(args, 'summary');
  const { needsApproval: _, ...policy } = { ...terms, ...(core.config.tools[tool] ?? core.config.tools['*'] ?? {}) };
  const input: GatewayCallInput = {
    gateway: core.config.name,
    requester,
    server: ASK_ONLY_SERVER,
    upstreamTool: tool,
    tool: {
      name: tool,
      description: summary ?? `${tool}, asked through the HTTP approvals API`,
      parameters: { type: 'object' },
      approval: 'always',
    },
    // The approver reads the summary beside the arguments; it is taken off again from what is approved.
    arguments: JSON.stringify(summarised ? { ...args, summary } : args),
    wait: termsOf({ gated: true, policy }, requester, core.requireSignedDecisions),
    rejectionText: DEFAULT_REJECTION,
    taskQueue: core.taskQueue,
  };
  const id = `${idPrefix(core)}${digest([requester, key])}`;
  const request = digest(parsed.data);
  const handle = core.client.workflow.getHandle(id);
  let created = !(await handle.describe().then(
    () => true,
    (err: unknown) => (err instanceof WorkflowNotFoundError ? false : Promise.reject(err)),
  ));
  if (created)
    await core.client.workflow
      .start(GATEWAY_WORKFLOW_TYPE, {
        workflowId: id,
        taskQueue: core.taskQueue,
        args: [input],
        memo: { requester, request, tool, summarised },
        workflowIdReusePolicy: 'REJECT_DUPLICATE', // a key books one request, ever
      })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        created = false; // another post with this key came first
      });
  const d = await handle.describe();
  if (d.memo?.request !== request)
    return refuse(422, 'Idempotency-Key: already used for another request; send a new key for a new request');
  const status = await statusOf(core, requester, id, 0);
  return { status: created ? 201 : 200, body: status.body };
}

/** GET /v1/approval-requests/{id}?wait=N: the request's status, after waiting up to N seconds for a decision. */
export async function statusOf(core: GatewayCore, requester: string, id: string, waitSeconds: number): Promise<Reply> {
  const handle = core.client.workflow.getHandle(id);
  const d = id.startsWith(idPrefix(core))
    ? await handle.describe().catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      })
    : undefined;
  // Another requester's request is not there for this one, as another principal's MCP task is not.
  if (!d || d.memo?.requester !== requester) return refuse(404, `no approval request ${id} at this gateway`);
  const run = { workflowId: id, runId: d.runId };
  const ended = d.status.name === 'RUNNING' ? await answeredWithin(core, run, waitSeconds * 1000) : undefined;
  const base = { id, tool: d.memo?.tool, links: linksOf(core, id) };
  const state = ended ? 'ENDED' : d.status.name === 'RUNNING' ? (await handle.describe()).status.name : d.status.name;
  if (state === 'RUNNING') {
    const where = whereToDecide(core)(run, await pendingCall(core, run));
    return { status: 200, body: { ...base, status: 'pending', waitingFor: where } };
  }
  if (state === 'CANCELLED' || state === 'TERMINATED') return { status: 200, body: { ...base, status: 'cancelled' } };
  const result = ended ?? (await handle.result().catch((err: Error) => err));
  if (result instanceof Error) {
    const timedOut = (result.cause as { type?: string } | undefined)?.type === Failure.ApprovalTimedOut;
    return { status: 200, body: { ...base, status: timedOut ? 'expired' : 'cancelled', message: result.message } };
  }
  const r = result as GatewayRunResult;
  const call = r.gatewayCall;
  const decided = (...words: string[]) => r.audit.filter((e: AuditEntry) => words.includes(e.decision));
  if (call.outcome === 'ran') {
    const approvers = decided('approved', 'approval_counted', 'granted').flatMap((e) =>
      e.approver ? [e.approver] : [],
    );
    const approved = (call.result.structuredContent as { arguments?: Record<string, unknown> } | undefined)?.arguments;
    const { summary: _, ...rest } = approved ?? {};
    const args = d.memo?.summarised === true ? rest : approved;
    return { status: 200, body: { ...base, status: 'approved', arguments: args, approvers: [...new Set(approvers)] } };
  }
  if (decided('expired').length) return { status: 200, body: { ...base, status: 'expired', message: call.text } };
  const rejecting = decided('rejected')[0];
  return {
    status: 200,
    body: {
      ...base,
      status: 'rejected',
      message: rejecting?.message ?? call.text,
      ...(rejecting?.approver ? { approver: rejecting.approver } : {}),
    },
  };
}

/** The `wait` query parameter: whole seconds, 0 to MAX_POLL_SECONDS; undefined when it is not. */
export function pollSeconds(value: string | null): number | undefined {
  if (value === null) return 0;
  const n = Number(value);
  return /^\d+$/.test(value) && n <= MAX_POLL_SECONDS ? n : undefined;
}
