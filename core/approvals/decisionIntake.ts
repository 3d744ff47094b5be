// One intake for every decision: the five signals, the `decide` update, and decisions a parent run passes on to a
// sub-run all become `Decision`s here and pass the same check, once per stage: once in the update's validator, once
// in a handler (a signal's, the update's), and the book applies what was checked without checking it again
// (CheckedBatch). Pure: the workflow lends the activities (token signatures, edited arguments) and does the applying;
// unit tests drive this directly.
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
import type { NameRule } from '../../contract/approverName';
import type { YesNo } from '../../contract/decisionWords';
import {
  type BookDecision,
  type CheckedBatch,
  type CheckedDecision,
  checkDecision,
  unknownCallProblem,
} from './decisionRules';
import type { BookCall } from './approvalBook';
import { type TokenContext, readToken, stillAuthorized } from '../signing/signedDecisions';

export type SignalKind = YesNo | 'provideInput' | 'provideResult' | 'extend';
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

/** A batch that passed the check: this run's decisions (marked checked by its book), and those for its sub-runs as they came. */
export type Admitted = {
  local: CheckedDecision[];
  forward: Array<{ subRunWorkflowId: string; decision: Decision }>;
};

/** What the workflow lends the intake: its name rule, what tokens must name, its clock, and two activities. */
export interface IntakeChecks {
  names: NameRule;
  /** The workflow id tokens must name: the top run's. */
  tokenRun: string;
  nowSeconds: () => number;
  /** Token signatures against the worker's approver keys, in order. */
  verifyTokens: (tokens: string[]) => Promise<Array<{ ok: true } | { ok: false; problem: string }>>;
  /** What people sent, against the call's tool schema: normalised JSON text, or why not. */
  validate: (
    call: Pick<BookCall, 'callId' | 'toolName'>,
    given: ArgumentsToValidate,
  ) => Promise<{ ok: true; arguments: string } | { ok: false; problem: string }>;
}

/** A batch ready to apply: this run's part checked at the book's revision, and what goes on to sub-runs as it came. */
export type Intake = { problem: string } | { local: CheckedBatch; forward: Admitted['forward'] };

/** A decision as it came on the wire: the signer the run read from its token stays here. */
function asSent(d: BookDecision): Decision {
  const sent = { ...d };
  delete sent.signed;
  return sent;
}

/**
 * The validator's pass, and the first step of a handler's. Tokens' claims are read first (a token counts once per
 * batch; a decision without one is not looked at). Then each decision is checked once, by this run's book (which
 * marks it checked) or, for a sub-run's call, against what the sub-run last reported (a call neither holds: the
 * refusal lists the run's pending ids); the first problem refuses the whole batch. Never changes anything.
 */
export function admitDecisions(
  state: AgentRunState,
  decisions: Decision[],
  names: NameRule,
  checks: Pick<IntakeChecks, 'tokenRun' | 'nowSeconds'>,
): { problem: string } | Admitted {
  const read: BookDecision[] = [...decisions];
  const seen = new Set<string>();
  let ctx: TokenContext | undefined;
  for (const [i, d] of decisions.entries()) {
    if (d.token === undefined) continue;
    ctx ??= {
      wf: checks.tokenRun,
      nowSeconds: checks.nowSeconds(),
      jtiUsed: (jti) => seen.has(jti) || state.book.jtiUsed(jti),
    };
    const call =
      state.book.call(d.callId) ?? state.childOwning(d.callId)?.[1].pending.find((p) => p.callId === d.callId);
    const r = readToken({ ...d, token: d.token }, call, ctx);
    if ('problem' in r) return r;
    if (r.decision.signed) seen.add(r.decision.signed.jti);
    read[i] = r.decision;
  }
  const out: Admitted = { local: [], forward: [] };
  for (const d of read) {
    const own = state.book.call(d.callId) !== undefined;
    const owner = own ? undefined : state.childOwning(d.callId);
    if (!own && !owner)
      return {
        problem: unknownCallProblem(
          d.callId,
          state.allPending().map((p) => p.callId),
          checks.tokenRun,
        ),
      };
    if (!owner) {
      const admitted = state.book.admit(d, decisions, names);
      if ('problem' in admitted) return admitted;
      out.local.push(admitted.decision);
      continue;
    }
    const problem = checkDecision(
      owner[1].pending.find((p) => p.callId === d.callId),
      d,
      decisions,
      names,
    );
    if (problem) return { problem };
    out.forward.push({ subRunWorkflowId: owner[0], decision: asSent(d) });
  }
  return out;
}

/**
 * A handler's pass: each decision checked once. Plain decisions are ready at once (no await: they apply in the
 * handler's own call). Tokens and edits go to their activities first; their check stands unless the book changed
 * while those ran (`revision`), when it is made again — the first answer may no longer hold — and a token's time
 * and single use are looked at again either way.
 */
export function takeDecisions(
  state: AgentRunState,
  decisions: Decision[],
  checks: IntakeChecks,
): Intake | Promise<Intake> {
  const at = state.book.revision;
  const admitted = admitDecisions(state, decisions, checks.names, checks);
  if ('problem' in admitted) return admitted;
  const { local, forward } = admitted;
  if (!local.some((d) => needsValidation(d) || d.signed)) return { local: { checked: local, at }, forward };
  return afterActivities(state, local, decisions, at, checks, forward);
}

async function afterActivities(
  state: AgentRunState,
  decisions: CheckedDecision[],
  batch: Decision[],
  at: number,
  checks: IntakeChecks,
  forward: Admitted['forward'],
): Promise<Intake> {
  state.validationStarted();
  try {
    const signed = decisions.filter((d) => d.signed);
    if (signed.length) {
      const answers = await checks.verifyTokens(signed.map((d) => d.token!));
      const bad = answers.findIndex((a) => !a.ok);
      if (bad >= 0)
        return {
          problem: `decision for call ${signed[bad]!.callId} refused: ${(answers[bad] as { problem: string }).problem}`,
        };
    }
    const validated = await validatedEdits(state, decisions, checks);
    if ('problem' in validated) return validated;
    const changed = state.book.revision !== at;
    const ctx = { nowSeconds: checks.nowSeconds(), jtiUsed: (jti: string) => state.book.jtiUsed(jti) };
    const checked: CheckedDecision[] = [];
    for (const d of validated.decisions) {
      const again = changed ? state.book.admit(d, batch, checks.names) : { decision: d };
      const why = 'problem' in again ? again.problem : stillAuthorized(d, ctx);
      if (why) return { problem: why };
      checked.push((again as { decision: CheckedDecision }).decision);
    }
    return { local: { checked, at: state.book.revision }, forward };
  } finally {
    state.validationEnded();
  }
}

/** Edited arguments and input values checked against the tool's schema and normalised; the first invalid one is the refusal. */
async function validatedEdits(
  state: AgentRunState,
  decisions: CheckedDecision[],
  checks: IntakeChecks,
): Promise<{ decisions: CheckedDecision[] } | { problem: string }> {
  const out: CheckedDecision[] = [];
  for (const d of decisions) {
    const call = state.book.call(d.callId);
    if (!needsValidation(d) || !call) {
      out.push(d);
      continue;
    }
    const checked = await checks.validate(call, argumentsToValidate(call.arguments, d));
    if (!checked.ok) return { problem: invalidEdit(d, call.toolName, checked.problem) };
    out.push({ ...d, editedArguments: checked.arguments }); // the same decision, its edit normalised: still checked
  }
  return { decisions: out };
}

/** What people send in a call's place, as sent: JSON text, an object, or input values over the model's arguments. */
export type ArgumentsToValidate = { arguments?: string; values?: Record<string, unknown> };

/** What to validate: input values complete the model's arguments; edited arguments replace them. As sent: the
 * activity parses each once, nothing is stringified to be parsed again. */
export function argumentsToValidate(modelArguments: string, d: Decision): ArgumentsToValidate {
  if (d.decision === 'input') return { arguments: modelArguments, ...(d.values ? { values: d.values } : {}) };
  return typeof d.editedArguments === 'string' ? { arguments: d.editedArguments } : { values: d.editedArguments };
}

export const invalidEdit = (d: Decision, toolName: string, problem: string): string =>
  `${d.decision === 'input' ? 'input values' : 'editedArguments'} for call ${d.callId} (${toolName}) are invalid: ${problem}`;
