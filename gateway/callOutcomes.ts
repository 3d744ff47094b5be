// What a caller did with an approved ask-only call, recorded against it: Claude Code's PostToolUse (or
// PostToolUseFailure) hook on POST /hooks/claude-code, and POST /v1/approval-requests/{id}/outcome. The call's run
// stays open for it up to OUTCOME_WINDOW after its answer (workflows/gatewayCall.ts) and audits it as `outcome`, which
// the ledger keeps. A PostToolUse of a call no rule gated, or whose run is gone, is answered at once with nothing
// booked. A hook's outcome keeps the exit code and the error only: a tool's output may hold secrets.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { rootCause } from '../core/run/failures';
import {
  type CallOutcome,
  MAX_OUTCOME_CHARS,
  OUTCOME_WINDOW,
  callOutcomeSchema,
  callOutcomeUpdate,
} from '../contract/gatewayMessages';
import type { HooksConfig } from './gatewayConfig';
import type { GatewayCore } from './gatewayServer';
import { workflowIdFor } from './gatedCalls';
import { verdictOf } from './hookRules';

/** The events this module records; every other hook event but PreToolUse is refused. */
export const POST_TOOL_EVENTS = ['PostToolUse', 'PostToolUseFailure'];

/** Claude Code's PostToolUse / PostToolUseFailure input (its hooks reference); fields it adds later pass unread. */
const postToolUseSchema = z.object({
  session_id: z.string({ error: 'must be the session id (a string)' }).min(1),
  hook_event_name: z.enum(['PostToolUse', 'PostToolUseFailure']),
  tool_name: z.string({ error: 'must be the tool name (a string)' }).min(1),
  tool_input: z.record(z.string(), z.unknown(), { error: "must be an object: the tool's input" }),
  tool_response: z.unknown().optional(),
  error: z.string().optional(),
  is_interrupt: z.boolean().optional(),
});
type PostToolUse = z.infer<typeof postToolUseSchema>;

export type Reply = { status: number; body: Record<string, unknown> };
const refuse = (status: number, error: string): Reply => ({ status, body: { error } });
const cut = (s: string) => (s.length > MAX_OUTCOME_CHARS ? `${s.slice(0, MAX_OUTCOME_CHARS - 1)}…` : s);

/** PostToolUse: recorded against the call's open run, if a rule gated it and one is open; 200 {} either way. */
export async function recordPostToolUse(
  core: GatewayCore,
  hooks: HooksConfig,
  requester: string,
  body: unknown,
): Promise<Reply> {
  const parsed = postToolUseSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const hook = parsed.data;
  if (verdictOf(hooks, hook.tool_name, hook.tool_input).kind !== 'gate') return { status: 200, body: {} };
  const bound = { session: hook.session_id, input: hook.tool_input };
  const workflowId = workflowIdFor(core.config.name, requester, hook.tool_name, bound);
  const d = await core.client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  if (d?.status.name === 'RUNNING')
    await core.client.workflow
      .getHandle(workflowId, d.runId)
      .executeUpdate(callOutcomeUpdate, { args: [{ outcome: outcomeOfHook(hook) }] })
      .catch(() => undefined); // not approved, or already reported: nothing to record
  return { status: 200, body: {} };
}

/** The exit code and error a hook's input says (a number the tool's response carries, "Exit code N" in an error). */
export function outcomeOfHook(
  hook: Pick<PostToolUse, 'hook_event_name' | 'tool_response' | 'error' | 'is_interrupt'>,
): CallOutcome {
  const r = (hook.tool_response ?? {}) as Record<string, unknown>;
  const given = [r.exit_code, r.exitCode, r.returnCode].find((v): v is number => Number.isInteger(v));
  if (hook.hook_event_name === 'PostToolUseFailure') {
    const error = cut(`${hook.is_interrupt ? 'interrupted: ' : ''}${hook.error ?? 'the tool failed'}`);
    const exitCode = given ?? Number(/Exit code (\d+)/i.exec(hook.error ?? '')?.[1] ?? NaN);
    return { ...(Number.isInteger(exitCode) ? { exitCode } : {}), error };
  }
  if (r.interrupted === true) return { ...(given !== undefined ? { exitCode: given } : {}), error: 'interrupted' };
  return given !== undefined ? { exitCode: given } : { text: 'succeeded' };
}

/** POST /v1/approval-requests/{id}/outcome: { exitCode?, error?, text? } against an approved request of this caller. */
export async function recordRequestOutcome(
  core: GatewayCore,
  requester: string,
  id: string,
  isOurs: (id: string) => boolean,
  body: unknown,
): Promise<Reply> {
  const parsed = callOutcomeSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(422, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const d = isOurs(id)
    ? await core.client.workflow
        .getHandle(id)
        .describe()
        .catch((err: unknown) => (err instanceof WorkflowNotFoundError ? undefined : Promise.reject(err)))
    : undefined;
  if (!d || d.memo?.requester !== requester) return refuse(404, `no approval request ${id} of yours at this gateway`);
  const closed = () =>
    refuse(
      409,
      `no outcome can be recorded for ${id} now: it was not approved, or its outcome came over ${OUTCOME_WINDOW} after the approval`,
    );
  if (d.status.name !== 'RUNNING') return closed();
  const handle = core.client.workflow.getHandle(id, d.runId);
  try {
    await handle.executeUpdate(callOutcomeUpdate, { args: [{ outcome: parsed.data }] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return refuse(409, rootCause(err).message);
    if ((await handle.describe()).status.name !== 'RUNNING') return closed(); // it ended meanwhile
    throw err;
  }
  return { status: 200, body: { id, outcome: parsed.data } };
}
