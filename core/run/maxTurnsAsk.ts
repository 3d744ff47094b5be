// onMaxTurns 'ask': when a run has used its turns, a person allows more or stops it. The question is an `input` item
// of the approval book under the tool name `max_turns` with one field, `turns` (how many more), so every way of
// deciding a call (CLI, update, signals, inbox, links, Slack, approvers, timeouts, audit) decides it as it is; a
// rejection stops the run. The turns allowed so far are read back from the book, which continue-as-new carries. Pure.
import type { BookView } from '../approvals/bookCall';
import { MAX_TURNS_TOOL } from '../approvals/itemIds';

/** The most turns one answer may allow (a run's maxTurns is at most 1000 too). */
export const MAX_MORE_TURNS = 1000;

/** Whether a book call is a max-turns question (by its id and tool name, which no model call has together). */
export const isMaxTurnsCall = (call: { callId: string; toolName: string }): boolean =>
  call.toolName === MAX_TURNS_TOOL && call.callId.startsWith(`${MAX_TURNS_TOOL}:`);

/** The turns people allowed beyond maxTurns: each answered question's `turns` (as validated, or as proposed on approve-by-timeout). */
export function turnsAllowed(book: BookView): number {
  let more = 0;
  for (const call of book.calls) {
    if (!isMaxTurnsCall(call) || call.state !== 'approved') continue;
    const turns = (JSON.parse(call.editedArguments ?? call.arguments) as { turns?: unknown }).turns;
    if (typeof turns === 'number') more += turns;
  }
  return more;
}

/** A person's values over the question's arguments: `{ turns }` as JSON text, or what is wrong with them. */
export function checkTurns(
  argumentsJson: string,
  values: Record<string, unknown> | undefined,
): { ok: true; arguments: string } | { ok: false; problem: string } {
  const merged = { ...(JSON.parse(argumentsJson) as Record<string, unknown>), ...values };
  const turns = typeof merged.turns === 'string' && /^\d+$/.test(merged.turns) ? Number(merged.turns) : merged.turns;
  if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 1 || turns > MAX_MORE_TURNS)
    return {
      ok: false,
      problem: `turns must be a whole number of turns from 1 to ${MAX_MORE_TURNS} (got ${JSON.stringify(merged.turns ?? null)}); to stop the run, reject it`,
    };
  return { ok: true, arguments: JSON.stringify({ ...merged, turns }) };
}
