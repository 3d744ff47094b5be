// `countersignGrants`: the standing grants of a namespace, durable in Temporal with no second database. One long-lived
// workflow (id `countersign-grants`) holds them; updates add, revoke and use them, one at a time, so a use is atomic.
// The rules are in core/grants/grantsState.ts; here they meet workflow time (deterministic), validators, and continue-as-new.
import { ApplicationFailure, allHandlersFinished, condition, continueAsNew, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import { rootCause } from '../core/run/failures';
import { activeGrants, addGrant, carryGrants, checkRevoke, emptyGrants, grantRefusal, grantWarning, pruneGrants, revokeGrant, useGrant } from '../core/grants/grantsState';
import { type GrantsState, addGrantRequestSchema, revokeGrantRequestSchema, useGrantRequestSchema } from '../contract/grantMessages';
import { describeZodError } from '../contract/zodErrors';
import { describeAgent } from './activityProxies';
import { type AddGrantResult, type GrantsCarry, GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS, addGrantUpdate, grantsQuery, revokeGrantUpdate, useGrantUpdate } from '../contract/grantMessages';

/** A refusal: final for this request, and an ApplicationFailure (anything else would fail the workflow task, not the update). */
const refuse = (message: string) => ApplicationFailure.create({ type: 'GrantRefused', message, nonRetryable: true });

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

export async function countersignGrants(carry?: GrantsCarry): Promise<void> {
  const state: GrantsState = carry?.state ?? emptyGrants();
  const limit = carry?.continueAsNewAfterEvents ?? GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS;

  setHandler(
    addGrantUpdate,
    async (raw): Promise<AddGrantResult> => {
      const req = parse(addGrantRequestSchema, raw, 'addGrant');
      const agent = await agentNamed(req.agent, req.tool);
      const refusal = grantRefusal(agent, req.tool);
      if (refusal) throw refuse(`cannot grant: ${refusal}`);
      const grant = change(state, (now) => addGrant(state, req, newGrantId(state), now));
      const warning = grantWarning(agent, req.tool, req.grantedBy);
      return { grantId: grant.id, expiresAt: grant.expiresAt, ...(warning ? { warning } : {}) };
    },
    { validator: (raw) => void parse(addGrantRequestSchema, raw, 'addGrant') },
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

  setHandler(useGrantUpdate, (raw) => change(state, (now) => useGrant(state, parse(useGrantRequestSchema, raw, 'useGrant'), now)), {
    validator: (raw) => void parse(useGrantRequestSchema, raw, 'useGrant'),
  });

  setHandler(grantsQuery, () => activeGrants(state, Date.now()));

  // Nothing else to do but stay: continue as new when the history grows, carrying only what still matters.
  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= limit);
  await condition(allHandlersFinished);
  await continueAsNew<typeof countersignGrants>({ state: carryGrants(state, Date.now()), ...(carry?.continueAsNewAfterEvents ? { continueAsNewAfterEvents: limit } : {}) });
}
