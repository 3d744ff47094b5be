// How decisions read: the quorum so far, durations in messages, and the exact text a signed token's `args` digest
// covers. No imports at run time, so the CLI can load it at start.
import type { Decision } from '../../contract/messages';
import { shorten } from './callSummary';
import type { Quorum } from '../../contract/pendingCall';
import type { DeepReadonly } from './bookCall';

/** The arguments a token signs: the edited ones when the decision edits (their JSON text as sent), else the call's exactly as shown. */
export function signedArguments(d: Pick<Decision, 'editedArguments'>, call: { arguments: string }): string {
  if (d.editedArguments === undefined) return call.arguments;
  return typeof d.editedArguments === 'string' ? d.editedArguments : JSON.stringify(d.editedArguments);
}

/** "1 of 2 approvals (ann)" */
export const quorumText = (q: DeepReadonly<Quorum>): string =>
  `${q.approvedBy.length} of ${q.needed} approvals${q.approvedBy.length ? ` (${q.approvedBy.join(', ')})` : ''}`;

/** 90000 → "1m30s": for messages. */
export function formatMs(ms: number): string {
  if (ms <= 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    const n = Math.floor(ms / size);
    if (n > 0) parts.push(`${n}${unit}`);
    ms -= n * size;
  }
  return parts.join('') || `${ms}ms`;
}

/**
 * What the model hears when a call's time ran out, unless the agent chose its own words: the wait, and any
 * extension approvers gave ("The approval request expired after 24h and an extension of 4h.").
 */
export function expiryText(call: { kind?: string; timeout: string; extendedMs?: number }): string {
  const waited = call.extendedMs ? `${call.timeout} and an extension of ${formatMs(call.extendedMs)}` : call.timeout;
  return call.kind === 'external'
    ? `No result arrived within ${waited}.`
    : `The approval request expired after ${waited}.`;
}

/** Why a guardrail put an item before a person, for the CLI and the inbox: "guardrail no_pii (input) tripped: {…}". */
export function guardrailText(g: { name: string; stage: string; outputInfo?: unknown }): string {
  const verdict = g.stage === 'tool_input' ? 'asks a person to decide this call' : 'tripped';
  const info =
    g.outputInfo === undefined ? '' : `: ${shorten(JSON.stringify(g.outputInfo) ?? String(g.outputInfo), 300)}`;
  return `guardrail ${g.name} (${g.stage.replace('_', ' ')}) ${verdict}${info}`;
}
