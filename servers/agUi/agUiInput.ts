// What an AG-UI request carries (RunAgentInput), checked once, and what its parts mean here: the user messages the
// thread does not hold yet become the run's input, and each resume entry becomes a decision for the same intake every
// other channel uses (Decider, servers/inbox/deciding.ts). Fields Countersign has no use for (tools the front end
// offers, its state, forwardedProps) are accepted and left alone.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Decision } from '../../contract/messages';
import type { PendingApproval } from '../../contract/runViews';
import { DecisionProblem } from '../inbox/deciding';
import { OWN_ID_PREFIX } from './agUiEvents';

const text = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

const messageSchema = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: text.optional().nullable(),
});

const resumeSchema = z.looseObject({
  interruptId: z.string().min(1).max(200),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const runAgentInputSchema = z.looseObject({
  threadId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, 'threadId is 1 to 100 letters, digits, dots, underscores or dashes'),
  runId: z.string().min(1).max(200),
  messages: z.array(messageSchema).max(1000),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  state: z.unknown().optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(resumeSchema).max(100).optional(),
});
export type AgUiInput = z.infer<typeof runAgentInputSchema>;
export type ResumeEntry = z.infer<typeof resumeSchema>;

const contentText = (content: AgUiInput['messages'][number]['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');

/** Where the messages after the last one of ours begin (0 when the front end holds none of ours). */
function afterOurs(messages: AgUiInput['messages']): number {
  let from = 0;
  messages.forEach((m, i) => {
    if (m.id.startsWith(OWN_ID_PREFIX)) from = i + 1;
  });
  return from;
}

/**
 * The user messages the thread does not hold yet: those after the last message the thread sent (a front end resends
 * the whole history each run, with our messages in it). A new thread's every user message is new.
 */
export function newUserMessages(messages: AgUiInput['messages']): string[] {
  return messages
    .slice(afterOurs(messages))
    .filter((m) => m.role === 'user')
    .map((m) => contentText(m.content).trim())
    .filter(Boolean);
}

/** The id a user message takes once the thread holds it: one of ours, short whatever the front end's id. */
const heldId = (id: string) => `${OWN_ID_PREFIX}u-${createHash('sha256').update(id).digest('base64url').slice(0, 22)}`;

/**
 * The front end's messages as a MESSAGES_SNAPSHOT once the thread holds its new user messages: those under our ids,
 * so the history it resends next shows them as the thread's, however the run goes on (still waiting, it streams no
 * message of ours after them). Undefined when there are none.
 */
export function heldSnapshot(messages: AgUiInput['messages']): AgUiInput['messages'] | undefined {
  const from = afterOurs(messages);
  if (!messages.slice(from).some((m) => m.role === 'user')) return undefined;
  return messages.map((m, i) => (i >= from && m.role === 'user' ? { ...m, id: heldId(m.id) } : m));
}

/** Whether the front end holds a message of ours: if not, the user messages it sends may be ones the thread holds. */
export const holdsOurs = (messages: AgUiInput['messages']): boolean => afterOurs(messages) > 0;

/**
 * The messages the thread does not hold, for a front end that holds none of ours (a run that paused before it said
 * anything: an input guardrail): those the thread's user messages (`held`, in order) begin with are not new. A start
 * joins its messages into one input, so they are compared joined the same way.
 */
export function notHeld(candidates: string[], held: string[]): string[] {
  const all = held.join('\n\n');
  for (let k = candidates.length; k > 0; k--)
    if (candidates.slice(0, k).join('\n\n') === all) return candidates.slice(k);
  return candidates;
}

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const optionalText = (v: unknown, what: string): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new DecisionProblem(`${what} must be a string`);
  return v;
};

/** One resume entry as a decision on its pending item; a DecisionProblem says what is wrong with it. */
function decisionOf(entry: ResumeEntry, call: PendingApproval): Decision {
  const callId = call.callId;
  const payload = record(entry.payload);
  const signature = optionalText(entry.metadata?.signature, 'metadata.signature');
  // What the person saw (the interrupt's metadata.fingerprint): the run refuses the decision if that has changed since.
  const fingerprint = optionalText(entry.metadata?.fingerprint, 'metadata.fingerprint');
  const seen = fingerprint ? { fingerprint } : {};
  const signed = { ...(signature ? { token: signature } : {}), ...seen };
  const message = optionalText(payload.message, 'payload.message');
  if (entry.status === 'cancelled') return { callId, decision: 'reject', ...(message ? { message } : {}), ...signed };
  if (call.kind === 'input') {
    const values = 'values' in payload ? record(payload.values) : payload;
    return { callId, decision: 'input', values, ...seen };
  }
  if (call.kind === 'external') {
    const error = optionalText(payload.error, 'payload.error');
    if (error !== undefined) return { callId, decision: 'result', error, ...seen };
    const result = payload.result;
    if (result === undefined) throw new DecisionProblem(`interrupt ${callId}: the payload needs a result or an error`);
    const output = typeof result === 'string' ? result : JSON.stringify(result);
    return { callId, decision: 'result', result: output, ...seen };
  }
  if (call.kind === 'uncertain') {
    const verb = payload.decision;
    if (verb === 'retry') return { callId, decision: 'retry' };
    if (verb === 'done')
      return { callId, decision: 'done', result: optionalText(payload.result, 'payload.result') ?? '' };
    if (verb === 'failed')
      return { callId, decision: 'failed', error: optionalText(payload.error, 'payload.error') || 'marked failed' };
    throw new DecisionProblem(`interrupt ${callId}: payload.decision is retry, done or failed`);
  }
  if (typeof payload.approved !== 'boolean')
    throw new DecisionProblem(`interrupt ${callId}: payload.approved must be true or false`);
  if (!payload.approved) return { callId, decision: 'reject', ...(message ? { message } : {}), ...signed };
  const edited = payload.editedArgs;
  if (edited !== undefined && (typeof edited !== 'object' || edited === null || Array.isArray(edited)))
    throw new DecisionProblem(`interrupt ${callId}: payload.editedArgs must be a JSON object`);
  return {
    callId,
    decision: 'approve',
    ...(edited ? { editedArguments: edited as Record<string, unknown> } : {}),
    ...(payload.alwaysApprove === true ? { always: true } : {}),
    ...signed,
  };
}

/** The decisions the resume entries carry, each checked against what the thread waits for; nothing is sent here. */
export function decisionsOf(resume: readonly ResumeEntry[], pending: readonly PendingApproval[]): Decision[] {
  return resume.map((entry) => {
    const call = pending.find((p) => p.callId === entry.interruptId);
    if (!call)
      throw new DecisionProblem(
        `interrupt ${entry.interruptId} is not open on this thread (decided already, or never asked): reload the thread`,
      );
    return decisionOf(entry, call);
  });
}
