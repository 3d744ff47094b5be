// A coding agent's tool call, asked by its PreToolUse hook (POST /hooks/claude-code; `countersign hook cursor`
// forwards Cursor's here too). A call a rule gates is a gated call like any MCP call the gateway gates: the same
// workflow and approval book, its run id a digest of the requester, the tool and {session, tool_input}, so the same
// session asking again with the same input joins the call. Its "upstream" is nothing (ASK_ONLY_SERVER): approved, it
// answers allow and the agent runs the tool itself. One answer per run: once a request got it, the same input is a new call.
// Its PostToolUse, posted here too, records what the tool did against the call (callOutcomes.ts).
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { awaitAnswerUpdate, gatewayAnswerQuery } from '../contract/gatewayMessages';
import { DEFAULT_REJECTION } from '../activities/callPlanning';
import { durationMs } from '../contract/approvalPolicy';
import { pendingApprovalsQuery } from '../contract/messages';
import { ASK_ONLY_SERVER, type GatewayCallInput, type GatewayRunResult } from '../core/run/gatewayRuns';
import { type CallRun, startOrJoin, workflowIdFor } from './gatedCalls';
import { whereToDecide } from './gatedWaits';
import type { GatewayCore } from './gatewayServer';
import { termsOf } from './gating';
import { verdictOf } from './hookRules';
import { POST_TOOL_EVENTS, recordPostToolUse } from './callOutcomes';

const MAX_DIFF_SOURCE_BYTES = 1024 * 1024;
const MAX_DIFF_CHARS = 20_000;

/** Claude Code's PreToolUse hook input (its hooks reference); fields it adds later pass unread. */
const preToolUseSchema = z.object({
  session_id: z.string({ error: 'must be the session id (a string)' }).min(1),
  transcript_path: z.string().optional(),
  cwd: z.string({ error: 'must be the working directory (a string)' }),
  hook_event_name: z.string({ error: 'must be "PreToolUse"' }),
  tool_name: z.string({ error: 'must be the tool name (a string)' }).min(1),
  tool_input: z.record(z.string(), z.unknown(), { error: "must be an object: the tool's input" }),
  tool_use_id: z.string().optional(),
});
export type PreToolUse = z.infer<typeof preToolUseSchema>;

export type Decision = 'allow' | 'deny' | 'ask';
export interface HookAnswer {
  hookSpecificOutput: { hookEventName: 'PreToolUse'; permissionDecision: Decision; permissionDecisionReason: string };
}
/** What the HTTP side sends: 200 and a hook answer ({} to a PostToolUse), or a 4xx and one line (nothing booked). */
export type HookReply = { status: number; body: HookAnswer | Record<string, unknown> };

const answer = (permissionDecision: Decision, reason: string): HookReply => ({
  status: 200,
  body: {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason },
  },
});
const refuse = (status: 400 | 404, error: string): HookReply => ({ status, body: { error } });

export async function answerPreToolUse(core: GatewayCore, requester: string, body: unknown): Promise<HookReply> {
  const hooks = core.config.hooks;
  if (!hooks) return refuse(404, 'this gateway takes no hooks: add "hooks" to its config (docs/coding-agents.md)');
  const event = (body as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof event === 'string' && POST_TOOL_EVENTS.includes(event))
    return recordPostToolUse(core, hooks, requester, body);
  if (typeof event === 'string' && event !== 'PreToolUse')
    return refuse(
      400,
      `unknown hook event "${event}": this endpoint answers PreToolUse and records PostToolUse, PostToolUseFailure`,
    );
  const parsed = preToolUseSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const hook = parsed.data;
  const verdict = verdictOf(hooks, hook.tool_name, hook.tool_input);
  if (verdict.kind !== 'gate') return answer(verdict.kind, verdict.reason);
  const input: GatewayCallInput = {
    gateway: core.config.name,
    requester,
    server: ASK_ONLY_SERVER,
    upstreamTool: hook.tool_name,
    tool: {
      name: hook.tool_name,
      description: `${hook.tool_name}, asked by a coding agent's hook`,
      parameters: { type: 'object' },
      approval: 'always',
    },
    arguments: JSON.stringify(shownToApprover(hook)),
    wait: termsOf({ gated: true, policy: verdict.policy }, requester, core.requireSignedDecisions),
    rejectionText: DEFAULT_REJECTION,
    taskQueue: core.taskQueue,
  };
  // What is approved: this session's exact input (its canonical form is the run id's digest).
  const bound = { session: hook.session_id, input: hook.tool_input };
  const kept = await core.owed.reusable(core.client, workflowIdFor(input.gateway, requester, input.tool.name, bound));
  const run = kept ?? (await startOrJoin(core.client, input, bound));
  const ended = await answeredWithin(core, run, durationMs(hooks.wait));
  if (ended) {
    core.owed.collect(run);
    return answerOf(ended);
  }
  const where = whereToDecide(core)(run, await pendingCall(core, run));
  if (hooks.undecided === 'ask') return answer('ask', `Countersign: not decided yet, ${where}`);
  return answer(
    'deny',
    `Not decided yet in Countersign: ${where}. Ask again with the same input once decided: it joins this call.`,
  );
}

/** The approver's view: the input, where and in which session it runs, and for Edit and Write the change. */
function shownToApprover(hook: PreToolUse): Record<string, unknown> {
  const diff = diffOf(hook);
  return { ...hook.tool_input, cwd: hook.cwd, session: hook.session_id, ...(diff ? { diff } : {}) };
}

function diffOf(hook: PreToolUse): string | undefined {
  const i = hook.tool_input;
  if (typeof i.file_path !== 'string' || !['Write', 'Edit', 'MultiEdit'].includes(hook.tool_name)) return undefined;
  const path = isAbsolute(i.file_path) ? i.file_path : resolve(hook.cwd, i.file_path);
  let before = '';
  try {
    if (statSync(path).size <= MAX_DIFF_SOURCE_BYTES) before = readFileSync(path, 'utf8');
    else return `(${path} is over 1 MB: no diff)`;
  } catch {
    // A new file: the diff is all additions.
  }
  const edits =
    hook.tool_name === 'MultiEdit' && Array.isArray(i.edits) ? (i.edits as Array<Record<string, unknown>>) : [i];
  let after = hook.tool_name === 'Write' ? String(i.content ?? '') : before;
  if (hook.tool_name !== 'Write')
    for (const e of edits) {
      const [from, to] = [String(e.old_string ?? ''), String(e.new_string ?? '')];
      after = e.replace_all === true ? after.split(from).join(to) : after.replace(from, () => to);
    }
  return createTwoFilesPatch(path, path, before, after).slice(0, MAX_DIFF_CHARS);
}

/**
 * The run's answer, if it has one within ms; undefined if not. A run of change callOutcomes answers while it stays
 * open (a query, then an update that waits); an older run, or one gone, answers with its end.
 */
export async function answeredWithin(
  core: GatewayCore,
  run: CallRun,
  ms: number,
): Promise<GatewayRunResult | Error | undefined> {
  const handle = core.client.workflow.getHandle(run.workflowId, run.runId);
  const now = await handle.query(gatewayAnswerQuery).catch(() => undefined); // undefined: no such query (older run)
  if (now) return now.result as GatewayRunResult;
  if (ms <= 0) return undefined;
  const ended = async () => (await handle.result()) as GatewayRunResult;
  const answer =
    now === null
      ? () =>
          handle.executeUpdate(awaitAnswerUpdate).then(
            (a) => a.result as GatewayRunResult,
            (err: unknown) => (err instanceof WorkflowUpdateFailedError ? Promise.reject(err) : ended()),
          )
      : ended;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([
      core.client.withAbortSignal(stop.signal, answer).catch((err: Error) => (stop.signal.aborted ? undefined : err)),
      timeUp,
    ]);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

function answerOf(ended: GatewayRunResult | Error): HookReply {
  if (ended instanceof Error)
    return answer(
      'deny',
      `Countersign: the call did not complete: ${(ended.cause as Error)?.message ?? ended.message}`,
    );
  const result = ended.gatewayCall;
  if (result.outcome === 'ran') return answer('allow', 'Approved in Countersign');
  return answer('deny', `Countersign: ${result.text}`);
}

/** The run's waiting call, for who decides it. */
export async function pendingCall(core: GatewayCore, run: CallRun) {
  const pending = await core.client.workflow
    .getHandle(run.workflowId, run.runId)
    .query(pendingApprovalsQuery)
    .catch(() => []);
  return pending[0];
}
