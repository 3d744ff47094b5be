// `countersignGrants`: the standing grants of a namespace, durable in Temporal with no second database. One long-lived
// workflow (id `countersign-grants`) holds them; updates add, revoke and use them, one at a time, so a use is atomic.
// The rules are in core/grants/grantsState.ts; here they meet workflow time (deterministic), validators, and continue-as-new.
// Every way in is checked: each update's payload, and the start input (anyone who may start a workflow may craft one).
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { z } from 'zod';
import { Failure, refusalOf } from '../contract/failureTypes';
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import { rootCause } from '../core/run/failures';
import {
  type GrantSignature,
  activeGrants,
  addGrant,
  capGrants,
  carryGrants,
  checkRevoke,
  emptyGrants,
  jtiUsed,
  pruneGrants,
  revokeGrant,
  useGrant,
} from '../core/grants/grantsState';
import { grantRefusal, grantSignatureNeeded, grantWarning } from '../core/grants/grantableTools';
import {
  type AddGrantRequest,
  type GrantsState,
  addGrantRequestSchema,
  grantsCarrySchema,
  revokeGrantRequestSchema,
  useGrantRequestSchema,
} from '../contract/grantMessages';
import { describeZodError } from '../contract/zodErrors';
import { checkGrantClaims, decodeGrantToken } from '../core/signing/grantToken';
import { describeAgent, verifyGrantToken } from './activityProxies';
import {
  type AddGrantResult,
  type GrantsCarry,
  GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS,
  addGrantUpdate,
  grantsQuery,
  revokeGrantUpdate,
  useGrantUpdate,
} from '../contract/grantMessages';

const refuse = refusalOf(Failure.GrantRefused);

function parse<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw refuse(`invalid ${what} request: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/** Runs a change of the grants with old entries pruned first; any error becomes a refusal. */
function change<T>(state: GrantsState, fn: (now: number) => T): T {
  try {
    pruneGrants(state, Date.now());
    return fn(Date.now());
  } catch (err) {
    throw err instanceof ApplicationFailure ? err : refuse((err as Error).message);
  }
}

/** A fresh grant id: short, and unique among the grants held (uuid4 is deterministic in workflow code). */
function newGrantId(state: GrantsState): string {
  for (;;) {
    const id = `g-${uuid4().replace(/-/g, '').slice(0, 12)}`;
    if (!state.grants.some((g) => g.id === id)) return id;
  }
}

/** The agent as the worker knows it now, to check that the tool exists and may be granted. */
async function agentNamed(name: string, tool: string): Promise<AgentSnapshot> {
  try {
    return await describeAgent({ name });
  } catch (err) {
    throw refuse(`cannot grant ${tool}: ${rootCause(err).message}`);
  }
}

/** Why a grant's token does not authorize it now (its signature aside), or undefined; also checked by the validator. */
function claimsProblem(state: GrantsState, req: AddGrantRequest): string | undefined {
  if (req.token === undefined) return undefined;
  const decoded = decodeGrantToken(req.token);
  if ('problem' in decoded) return decoded.problem;
  return checkGrantClaims(decoded, req, Math.floor(Date.now() / 1000), (jti) => jtiUsed(state, jti));
}

/**
 * A signed grant's signature as the worker's approver keys check it (an activity: the sandbox has no node:crypto),
 * with its claims checked here before and after. A tool that needs signed decisions or a quorum takes no other grant.
 */
async function signatureOf(
  state: GrantsState,
  agent: AgentSnapshot,
  req: AddGrantRequest,
): Promise<GrantSignature | undefined> {
  const needed = grantSignatureNeeded(agent, req.tool);
  if (req.token === undefined) {
    if (needed)
      throw refuse(`cannot grant: ${needed}: sign the grant with an approver key (--key <approver>.private.jwk)`);
    return undefined;
  }
  const before = claimsProblem(state, req);
  if (before) throw refuse(`cannot grant: ${before}`);
  const verdict = await verifyGrantToken(req.token);
  if (!verdict.ok) throw refuse(`cannot grant: ${verdict.problem}`);
  const after = claimsProblem(state, req); // the activity took time: the token may have expired or made a grant meanwhile
  if (after) throw refuse(`cannot grant: ${after}`);
  const { jti, exp } = (
    decodeGrantToken(req.token) as Exclude<ReturnType<typeof decodeGrantToken>, { problem: string }>
  ).claims;
  // The signer stands in for the tool's approvers: one the tool leaves out makes no signed grant.
  const outside = grantWarning(agent, req.tool, verdict.kid);
  if (outside)
    throw refuse(`cannot grant: the grant is signed by ${verdict.kid}, who is not among the approvers of ${req.tool}`);
  return { kid: verdict.kid, jti, exp };
}

/** The start input, checked like an update and held to the same limits (expiry, uses); a malformed one fails the workflow. */
function startState(carry: unknown): { state: GrantsState; limit: number } {
  const parsed = grantsCarrySchema.safeParse(carry);
  if (!parsed.success)
    throw ApplicationFailure.create({
      type: Failure.InvalidGrantsInput,
      message: `invalid grants workflow input: ${describeZodError(parsed.error)}`,
      nonRetryable: true,
    });
  const input = parsed.data ?? {};
  return {
    state: input.state ? capGrants(input.state, Date.now()) : emptyGrants(),
    limit: input.continueAsNewAfterEvents ?? GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS,
  };
}

export async function countersignGrants(carry?: GrantsCarry): Promise<void> {
  const { state, limit } = startState(carry);

  setHandler(
    addGrantUpdate,
    async (raw): Promise<AddGrantResult> => {
      const req = parse(addGrantRequestSchema, raw, 'addGrant');
      const agent = await agentNamed(req.agent, req.tool);
      const refusal = grantRefusal(agent, req.tool);
      if (refusal) throw refuse(`cannot grant: ${refusal}`);
      const signature = await signatureOf(state, agent, req);
      const grant = change(state, (now) => addGrant(state, req, newGrantId(state), now, signature));
      const warning = grantWarning(agent, req.tool, grant.grantedBy);
      return {
        grantId: grant.id,
        expiresAt: grant.expiresAt,
        ...(warning ? { warning } : {}),
        ...(signature ? { signedBy: signature.kid } : {}),
      };
    },
    {
      validator: (raw) => {
        const problem = claimsProblem(state, parse(addGrantRequestSchema, raw, 'addGrant'));
        if (problem) throw refuse(`cannot grant: ${problem}`);
      },
    },
  );

  setHandler(
    revokeGrantUpdate,
    (raw) =>
      change(state, (now) => {
        const grant = revokeGrant(state, parse(revokeGrantRequestSchema, raw, 'revokeGrant'), now);
        return { grantId: grant.id, revokedAt: grant.revokedAt! };
      }),
    {
      validator: (raw) => {
        const problem = checkRevoke(state, parse(revokeGrantRequestSchema, raw, 'revokeGrant').grantId, Date.now());
        if (problem) throw refuse(problem);
      },
    },
  );

  setHandler(
    useGrantUpdate,
    (raw) => change(state, (now) => useGrant(state, parse(useGrantRequestSchema, raw, 'useGrant'), now)),
    {
      validator: (raw) => void parse(useGrantRequestSchema, raw, 'useGrant'),
    },
  );

  setHandler(grantsQuery, () => activeGrants(state, Date.now()));

  // Nothing else to do but stay: continue as new when the history grows, carrying only what still matters.
  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= limit);
  await condition(allHandlersFinished);
  await continueAsNew<typeof countersignGrants>({
    state: carryGrants(state, Date.now()),
    ...(limit !== GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS ? { continueAsNewAfterEvents: limit } : {}),
  });
}
