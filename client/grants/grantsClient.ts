// Standing grants from the client library: make one (the grants workflow starts with the first), list the active
// ones, revoke one. Every refusal is a CountersignError with one line; nothing is created when one is thrown.
import { type Client, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { rootCause } from '../../core/run/failures';
import { retryUnprocessed } from '../updateRetry';
import { type GrantView, type Where, addGrantRequestSchema } from '../../contract/grantMessages';
import { describeZodError } from '../../contract/zodErrors';
import {
  type AddGrantResult,
  GRANTS_WORKFLOW_TYPE,
  addGrantUpdate,
  grantsQuery,
  revokeGrantUpdate,
} from '../../contract/grantMessages';
import { setting } from '../../temporal.config';
import { CountersignError, errorForFailure } from '../errors';
import { sameApprover } from '../../contract/approverName';
import { type ApproverPrivateKey, readPrivateKey } from '../signing/decisionSigning';
import { signGrant } from '../signing/grantSigning';

export type { AddGrantResult, GrantView, Where };

export interface GrantRequest {
  agent: string;
  tool: string;
  /** Per argument name: an exact JSON value, a string with `*` globs, or `{ max: n }` / `{ min: n }` for numbers. */
  where: Where;
  /** How long it holds: "30m", "1h", "7d". */
  for: string;
  /** Calls it may approve in all (default: any number until it expires). */
  uses?: number;
  /** The approver who grants it: calls it approves are audited with this name. */
  grantedBy: string;
  /**
   * Sign the grant with this approver's private key (a JWK, or its file): needed for a tool that needs signed decisions
   * or a quorum. `grantedBy` must name the key's approver.
   */
  signWith?: ApproverPrivateKey | string;
  /** A grant token made already (signGrant); signWith makes one. */
  token?: string;
}

export interface GrantsOptions {
  /** Default COUNTERSIGN_GRANTS_WORKFLOW_ID, else `countersign-grants`: the workers' must be the same. */
  workflowId?: string;
}

const workflowIdOf = (o?: GrantsOptions) => o?.workflowId ?? setting('COUNTERSIGN_GRANTS_WORKFLOW_ID');
const isNotFound = (err: unknown) =>
  err instanceof WorkflowNotFoundError || (err as Error)?.name === 'WorkflowNotFoundError';

/** A refusal from the grants workflow as one line; other errors as they are. */
function explained(err: unknown): Error {
  if (err instanceof WorkflowUpdateFailedError) return errorForFailure(rootCause(err), CountersignError);
  return err instanceof Error ? err : new Error(String(err));
}

/** What is wrong with a grant request, as one line naming the CLI's options (`--where amount: …`), or undefined. */
export function grantProblem(request: GrantRequest): string | undefined {
  const { signWith: _key, ...wire } = request;
  const parsed = addGrantRequestSchema.safeParse(wire);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  const [field = '', ...rest] = issue.path.map(String);
  const option = field === 'grantedBy' ? '--as' : field === 'agent' || field === 'tool' ? field : `--${field}`;
  return `${option}${rest.length ? ` ${rest.join('.')}` : ''}: ${issue.message}`;
}

/** Makes a grant; the grants workflow is started on `taskQueue` (a worker's) if it is not running yet. */
/** The request as sent: with signWith, its token by that key (whose approver must be the one it names). */
function signed(request: GrantRequest): Omit<GrantRequest, 'signWith'> {
  const { signWith, ...wire } = request;
  if (!signWith) return wire;
  const key = typeof signWith === 'string' ? readPrivateKey(signWith) : signWith;
  if (!sameApprover(key.kid, request.grantedBy))
    throw new CountersignError(
      `grantedBy ${request.grantedBy} contradicts signWith: a signed grant is by the key's approver (${key.kid})`,
    );
  return { ...wire, grantedBy: key.kid, token: signGrant(key, wire) };
}

export async function grant(
  client: Client,
  taskQueue: string,
  request: GrantRequest,
  options?: GrantsOptions,
): Promise<AddGrantResult> {
  const parsed = addGrantRequestSchema.safeParse(signed(request));
  if (!parsed.success) throw new CountersignError(`invalid grant: ${describeZodError(parsed.error)}`);
  const startWorkflowOperation = new WithStartWorkflowOperation(GRANTS_WORKFLOW_TYPE, {
    workflowId: workflowIdOf(options),
    taskQueue,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'Countersign standing grants',
  });
  try {
    return await client.workflow.executeUpdateWithStart(addGrantUpdate, {
      args: [parsed.data],
      startWorkflowOperation,
    });
  } catch (err) {
    throw explained(err);
  }
}

/** The grants that apply now (none while no grant was ever made, or the grants workflow is not running). */
export async function listGrants(client: Client, options?: GrantsOptions): Promise<GrantView[]> {
  const handle = client.workflow.getHandle(workflowIdOf(options));
  try {
    if ((await handle.describe()).status.name !== 'RUNNING') return [];
    const grants = await handle.query(grantsQuery);
    // The workflow's clock stops between its tasks: what expired since is dropped by this one.
    return grants.filter((g) => Date.parse(g.expiresAt) > Date.now());
  } catch (err) {
    if (isNotFound(err)) return [];
    throw explained(err);
  }
}

/** Revokes a grant at once: calls planned from now on no longer use it. */
export async function revokeGrant(
  client: Client,
  grantId: string,
  by?: string,
  options?: GrantsOptions,
): Promise<{ grantId: string; revokedAt: string }> {
  try {
    const handle = client.workflow.getHandle(workflowIdOf(options));
    return await retryUnprocessed(() =>
      handle.executeUpdate(revokeGrantUpdate, { args: [{ grantId, ...(by ? { by } : {}) }] }),
    );
  } catch (err) {
    if (isNotFound(err))
      throw new CountersignError(`unknown grant ${grantId}: no grants have been made (see: countersign grants)`);
    throw explained(err);
  }
}
