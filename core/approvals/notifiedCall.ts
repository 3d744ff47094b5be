// What a notification (the notify activity's webhook POST and log line) tells of the call it is about: one list of the
// pending call's fields, so the type (activities/notify.ts's Notification) and what a run sends (workflows/notifier.ts)
// cannot drift apart. Left out: `kind` (a notification says only `uncertain`, in its own field) and the decision
// rules' fields (approvers, signedDecisions, excludedApprover), which the run enforces. Pure.
import type { PendingApproval } from '../../contract/pendingCall';
import type { DeepReadonly } from './bookCall';

const NOTIFIED = [
  'callId',
  'toolName',
  'arguments',
  'requestedAt',
  'expiresAt',
  'path',
  'uncertainBecause',
  'preview',
  'request',
  'assistantSaid',
  'quorum',
  'fingerprint',
  'stale',
  'guardrail',
  'askedBecause',
] as const satisfies ReadonlyArray<keyof PendingApproval>;

/** The pending call's fields a notification about it carries. */
export type NotifiedCall = Pick<PendingApproval, (typeof NOTIFIED)[number]>;

/** The notified fields a call has, as a plain copy (absent ones stay absent): the book's state never leaves it. */
export function notifiedCall(call: DeepReadonly<PendingApproval>): NotifiedCall {
  return JSON.parse(JSON.stringify(Object.fromEntries(NOTIFIED.map((key) => [key, call[key]])))) as NotifiedCall;
}

/**
 * A notification as logged: without what people and the model wrote (the arguments, the request, the assistant's
 * words, what a guardrail checked and said), which only the webhook gets.
 */
export const loggable = <T extends NotifiedCall>(n: T) => ({
  ...n,
  arguments: undefined,
  request: undefined,
  assistantSaid: undefined,
  guardrail: n.guardrail && { name: n.guardrail.name, stage: n.guardrail.stage },
});
