// One intake for every decision: the four signals, the `decide` update, and decisions a parent run passes on to a
// sub-run all become `Decision`s here and pass the same check. Pure: the workflow does the waiting (edited
// arguments are validated in an activity) and the applying; unit tests drive this directly.
import type { AgentRunState } from '../run/agentRunState';
import {
  type DecidePayload,
  type Decision,
  approvePayloadSchema,
  decidePayloadSchema,
  provideInputPayloadSchema,
  extendPayloadSchema,
  provideResultPayloadSchema,
  rejectPayloadSchema,
} from '../../contract/messages';
import { describeZodError } from '../../contract/zodErrors';
import { canonicalNames, type NameRule } from '../../contract/approverName';
import { checkDecision } from './decisionRules';
import type { BookDecision } from './decisionRules';

export type SignalKind = 'approve' | 'reject' | 'provideInput' | 'provideResult' | 'extend';
export type Via = 'signal' | 'update';

const signalSchemas = {
  approve: approvePayloadSchema,
  reject: rejectPayloadSchema,
  provideInput: provideInputPayloadSchema,
  provideResult: provideResultPayloadSchema,
  extend: extendPayloadSchema,
};

/** Who a malformed payload claims to be about, for the audit's `ignored` entry. */
export type Claimed = { callId?: unknown; approver?: unknown };

/** A signal's payload as a decide entry, or why it is malformed. */
export function decisionFromSignal(
  kind: SignalKind,
  raw: unknown,
): { decision: Decision } | { problem: string; claimed: Claimed } {
  const parsed = signalSchemas[kind].safeParse(raw);
  if (!parsed.success)
    return { problem: `malformed ${kind} signal: ${describeZodError(parsed.error)}`, claimed: (raw ?? {}) as Claimed };
  const p = parsed.data as Record<string, unknown> & { callId: string; approver?: string; reason?: string };
  const base = {
    callId: p.callId,
    ...(p.approver !== undefined ? { approver: p.approver } : {}),
    ...(p.reason !== undefined ? { reason: p.reason } : {}),
  };
  if (kind === 'provideInput')
    return { decision: { ...base, decision: 'input', values: p.values as Record<string, unknown> } };
  if (kind === 'extend') return { decision: { ...base, decision: 'extend', by: p.by as string } };
  if (kind === 'provideResult')
    return {
      decision: {
        ...base,
        decision: 'result',
        ...(p.error !== undefined ? { error: p.error as string } : { result: p.result as string }),
      },
    };
  const always = kind === 'approve' ? p.alwaysApprove : p.alwaysReject;
  return {
    decision: {
      ...base,
      decision: kind,
      ...(always !== undefined ? { always: always as boolean } : {}),
      ...(p.message !== undefined ? { message: p.message as string } : {}),
      ...(p.editedArguments !== undefined ? { editedArguments: p.editedArguments as string } : {}),
      ...(p.token !== undefined ? { token: p.token as string } : {}),
    },
  };
}

/** The decide update's payload, parsed (defaults applied), or why not. */
export function parseDecide(
  payload: unknown,
): { payload: { decisions: Decision[]; inputs?: string[] } } | { problem: string } {
  const parsed = decidePayloadSchema.safeParse(payload as DecidePayload);
  return parsed.success
    ? { payload: parsed.data }
    : { problem: `invalid decide request: ${describeZodError(parsed.error)}` };
}

/** Edited arguments and input values must be checked against the tool's schema (in an activity) before they apply. */
export const needsValidation = (d: Decision): boolean => d.editedArguments !== undefined || d.decision === 'input';

/** Where a decision goes: this run's book, or the sub-run that holds the call. */
export type Route = { to: 'book' } | { to: 'child'; childId: string };

/**
 * The one check. Why the decision cannot apply (against this run's book, or against what the sub-run holding the
 * call last reported), or where it goes; approver names admitted and compared by `names`. Never changes anything.
 */
export function routeDecision(
  state: AgentRunState,
  d: BookDecision,
  batch: Decision[] = [],
  names: NameRule = canonicalNames,
): { problem: string } | Route {
  const owner = state.book.call(d.callId) ? undefined : state.childOwning(d.callId);
  const problem = owner
    ? checkDecision(
        owner[1].pending.find((p) => p.callId === d.callId),
        d,
        batch,
        names,
      )
    : state.book.check(d, batch, names);
  if (problem) return { problem };
  return owner ? { to: 'child', childId: owner[0] } : { to: 'book' };
}

/** Checks a whole batch; the first problem refuses all of it. Decisions are split by where they go. */
export function routeBatch<D extends BookDecision>(
  state: AgentRunState,
  decisions: D[],
  names: NameRule = canonicalNames,
): { problem: string } | { local: D[]; forward: Array<{ childId: string; decision: D }> } {
  const local: D[] = [];
  const forward: Array<{ childId: string; decision: D }> = [];
  for (const d of decisions) {
    const route = routeDecision(state, d, decisions, names);
    if ('problem' in route) return route;
    if (route.to === 'book') local.push(d);
    else forward.push({ childId: route.childId, decision: d });
  }
  return { local, forward };
}

/** The JSON text to validate: input values complete the model's arguments; edited arguments replace them. */
export function argumentsToValidate(modelArguments: string, d: Decision): string {
  if (d.decision === 'input')
    return JSON.stringify({ ...(JSON.parse(modelArguments) as Record<string, unknown>), ...d.values });
  return typeof d.editedArguments === 'string' ? d.editedArguments : JSON.stringify(d.editedArguments);
}

export const invalidEdit = (d: Decision, toolName: string, problem: string): string =>
  `${d.decision === 'input' ? 'input values' : 'editedArguments'} for call ${d.callId} (${toolName}) are invalid: ${problem}`;

/** A decision for a sub-run's call, as the signal the sub-run takes. */
export function signalFor(d: Decision): { name: SignalKind; payload: Record<string, unknown> } {
  const who = {
    callId: d.callId,
    ...(d.approver ? { approver: d.approver } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
  };
  // A token goes along as it came: the sub-run checks it itself (a parent's word is no proof).
  const token = d.token !== undefined ? { token: d.token } : {};
  if (d.decision === 'approve')
    return {
      name: 'approve',
      payload: {
        ...who,
        ...(d.always ? { alwaysApprove: true } : {}),
        ...(d.editedArguments !== undefined ? { editedArguments: d.editedArguments } : {}),
        ...token,
      },
    };
  if (d.decision === 'reject')
    return {
      name: 'reject',
      payload: {
        ...who,
        ...(d.always ? { alwaysReject: true } : {}),
        ...(d.message ? { message: d.message } : {}),
        ...token,
      },
    };
  if (d.decision === 'input') return { name: 'provideInput', payload: { ...who, values: d.values ?? {} } };
  if (d.decision === 'extend') return { name: 'extend', payload: { ...who, by: d.by } };
  if (d.decision === 'retry') return { name: 'approve', payload: who }; // an uncertain call takes approve as retry, provideResult as done / failed
  return {
    name: 'provideResult',
    payload: {
      callId: d.callId,
      ...(d.approver ? { approver: d.approver } : {}),
      ...(d.error !== undefined ? { error: d.error } : { result: d.result as string }),
    },
  };
}
