// What a session's next run starts with, as pure functions (no Temporal; unit-tested on their own): the previous
// run's conversation cut to the session limit at a user message, so a function call never arrives without its
// output (providers refuse such a conversation), and the previous run's always-rules for the new run's agent.
import { z } from 'zod';
import type { ConversationItem } from '../../contract/items';
import { runInputSchema } from '../../contract/messages';
import { ruleToolNameOf } from '../../contract/alwaysRuleKey';
import { SessionError } from './sessionErrors';
import { DEFAULT_SESSION_MAX_ITEMS, MAX_SESSION_MAX_ITEMS } from '../../temporal.config';

const sessionIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/);

/** Run `n` (from 1) of session `session`: its workflow id, the only place the session is written down. */
export function sessionRunId(session: string, n: number): string {
  return `session-${session}-${n}`;
}

export function checkSessionId(session: string): string {
  if (!sessionIdSchema.safeParse(session).success)
    throw new SessionError(
      `invalid session id ${JSON.stringify(session)}: use 1 to 100 letters, digits, dots, underscores or dashes`,
    );
  return session;
}

const maxItemsSchema = z.number().int().min(1).max(MAX_SESSION_MAX_ITEMS);

/** The session limit: the option, checked, else `configured` (the configuration's COUNTERSIGN_SESSION_MAX_ITEMS), else 200. */
export function sessionMaxItems(option?: number, configured: number = DEFAULT_SESSION_MAX_ITEMS): number {
  if (option === undefined) return configured;
  const parsed = maxItemsSchema.safeParse(option);
  if (!parsed.success)
    throw new SessionError(
      `sessionMaxItems must be a whole number from 1 to ${MAX_SESSION_MAX_ITEMS}, got ${JSON.stringify(option)}`,
    );
  return parsed.data;
}

const isUserMessage = (item: ConversationItem) => item.type === 'message' && item.role === 'user';

/**
 * Drops calls that never got an answer (a run terminated, failed or timed out while a call waited for a person),
 * and answers whose call is gone: a provider refuses a function_call without its output.
 */
export function answeredOnly(items: readonly ConversationItem[]): ConversationItem[] {
  const ids = (type: string, id: (i: ConversationItem) => string) =>
    new Set(items.filter((i) => i.type === type).map(id));
  const outputs = ids('function_call_output', (i) => (i as { callId: string }).callId);
  const calls = ids('function_call', (i) => (i as { callId: string }).callId);
  const responses = ids('mcp_approval_response', (i) => (i as { approvalRequestId: string }).approvalRequestId);
  return items.filter((i) => {
    if (i.type === 'function_call') return outputs.has(i.callId);
    if (i.type === 'function_call_output') return calls.has(i.callId);
    if (i.type === 'mcp_approval_request') return responses.has(i.id);
    return true;
  });
}

/**
 * The newest whole exchanges (a user message and everything up to the next one) that fit in `max` items. Oldest
 * exchanges go first; one exchange larger than `max` on its own is kept whole when it is the newest (cutting it
 * would separate calls from their outputs or the answer from its question).
 */
export function trimHistory(conversation: readonly ConversationItem[], max: number): ConversationItem[] {
  const items = answeredOnly(conversation);
  if (items.length <= max) return items;
  const starts = items.flatMap((item, i) => (isUserMessage(item) ? [i] : []));
  let keepFrom = starts.at(-1) ?? items.length;
  for (const start of starts.slice(0, -1).reverse()) {
    if (items.length - start > max) break;
    keepFrom = start;
  }
  return items.slice(keepFrom);
}

/** JSON bytes of a history, as the next run's start input carries it (before any codec); none at all when it is empty. */
export const historyBytes = (items: readonly ConversationItem[]) =>
  items.length ? Buffer.byteLength(JSON.stringify(items)) : 0;

// The `alwaysRules` of RunInput (by tool name); a run reports its rules by `agent/tool` (MCP: `agent/mcp:server/tool`).
const rulesSchema = runInputSchema.shape.alwaysRules.unwrap();
export type AlwaysRules = z.infer<typeof rulesSchema>;
const reportedRulesSchema = z.object({ alwaysRules: rulesSchema });

/**
 * The always-rules a run reports (undefined: it reports none, its worker predates them), as the rules of a new run
 * of `agent`: only that agent's (a rule holds per agent; rules of agents reached by handoff stay behind).
 */
export function rulesForAgent(snapshot: unknown, agent: string): AlwaysRules | undefined {
  const parsed = reportedRulesSchema.safeParse(snapshot);
  if (!parsed.success) return undefined;
  return Object.fromEntries(
    Object.entries(parsed.data.alwaysRules).flatMap(([key, rule]) => {
      const tool = ruleToolNameOf(key, agent);
      return tool === undefined ? [] : [[tool, rule]];
    }),
  );
}
