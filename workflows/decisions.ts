// The workflow's side of the decision intake: signals, the `decide` update (validator and handler) and user
// messages. Every decision passes the same check (domain/decisionIntake.ts); edited arguments and input values are
// validated against the tool's schema in an activity first; then the book applies them, or the sub-run that holds
// the call gets them. Signals cannot answer, so a refused one is audited as `ignored`; the update refuses with an
// ApplicationFailure and changes nothing.
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import type { AgentRunState } from '../domain/agentRunState';
import { DecisionError } from '../domain/approvalBook';
import { type Claimed, type SignalKind, type Via, argumentsToValidate, decisionFromSignal, invalidEdit, needsValidation, parseDecide, routeBatch, routeDecision } from '../domain/decisionIntake';
import { addInputPayloadSchema, describeZodError, type AppliedDecision, type DecideResult, type Decision } from './messages';
import { validateArguments } from './activities';
import type { Publisher } from './publication';
import type { SubRuns } from './subRuns';

/** A refusal of the update: final for this request (the CLI and clients do not suggest retrying). */
const refuse = (message: string) => ApplicationFailure.create({ type: 'DecisionRejected', message, nonRetryable: true });

export class DecisionDesk {
  constructor(
    private readonly state: AgentRunState,
    private readonly publisher: Publisher,
    private readonly subRuns: SubRuns,
    private readonly now: () => string,
  ) {}

  // Decisions without edited arguments apply synchronously, in the handler's own activation, exactly as runs
  // recorded before edits existed expect on replay (test/histories); only edits take the asynchronous path.
  signal(kind: SignalKind, raw: unknown): void | Promise<void> {
    const intake = decisionFromSignal(kind, raw);
    if ('problem' in intake) return this.ignore(intake.problem, intake.claimed);
    const d = intake.decision;
    const route = routeDecision(this.state, d);
    if ('problem' in route) return this.ignore(route.problem, d);
    if (route.to === 'child') return void this.subRuns.forward(route.childId, d);
    if (!needsValidation(d)) return void this.apply([d], 'signal');
    return (async () => {
      const validated = await this.validated([d]);
      const problem = validated.problem ?? this.state.book.check(d); // again: another decision may have landed meanwhile
      if (problem) return this.ignore(problem, d);
      this.apply(validated.decisions, 'signal');
    })();
  }

  /** The update's validator: refuses a malformed or inapplicable request before it enters history. */
  validate(payload: unknown): void {
    const parsed = parseDecide(payload);
    if ('problem' in parsed) throw refuse(parsed.problem);
    const routed = routeBatch(this.state, parsed.payload.decisions);
    if ('problem' in routed) throw refuse(routed.problem);
  }

  /** The update's handler: applies the whole batch or nothing (every error it throws is an ApplicationFailure). */
  update(payload: unknown): DecideResult | Promise<DecideResult> {
    try {
      const parsed = parseDecide(payload);
      if ('problem' in parsed) throw refuse(parsed.problem);
      const { decisions, inputs } = parsed.payload;
      const routed = routeBatch(this.state, decisions);
      if ('problem' in routed) throw refuse(routed.problem);
      const finish = (local: Decision[]): DecideResult => {
        const applied = local.length ? this.apply(local, 'update') : [];
        for (const f of routed.forward) applied.push(this.subRuns.forward(f.childId, f.decision));
        if (inputs?.length) this.queueInputs(inputs);
        return { applied, stillPending: this.state.allPending().map((c) => c.callId), ...(inputs?.length ? { inputsQueued: this.state.queuedInputs.length } : {}) };
      };
      if (!routed.local.some(needsValidation)) return finish(routed.local);
      return (async () => {
        const validated = await this.validated(routed.local);
        if (validated.problem) throw refuse(validated.problem);
        for (const d of routed.local) {
          const why = this.state.book.check(d, routed.local); // again: another decision may have landed while edits were checked
          if (why) throw refuse(why);
        }
        return finish(validated.decisions);
      })().catch((err: unknown) => {
        throw asUpdateFailure(err);
      });
    } catch (err) {
      throw asUpdateFailure(err);
    }
  }

  addInput(raw: unknown): void {
    const parsed = addInputPayloadSchema.safeParse(raw);
    if (!parsed.success) return log.warn('addInput signal ignored', { why: describeZodError(parsed.error) });
    this.queueInputs([parsed.data.message]);
  }

  private queueInputs(messages: string[]): void {
    this.state.queuedInputs.push(...messages);
    log.info('user input queued for the next turn', { count: messages.length });
  }

  private apply(decisions: Decision[], via: Via): AppliedDecision[] {
    const applied = this.state.book.decide(decisions, this.now(), via);
    for (const a of applied) log.info('decision applied', { callId: a.callId, tool: a.toolName, outcome: a.outcome, approver: a.approver, via });
    this.publisher.publish();
    return applied;
  }

  /** A signal that changes nothing: logged, audited as ignored, and (in a sub-run) reported to the parent that passed it on. */
  private ignore(why: string, who: Claimed): void {
    log.warn('signal ignored', { why });
    this.state.book.ignore(who, why, this.now(), 'signal');
    if (typeof who.callId === 'string') this.publisher.refuse(who.callId, why);
  }

  /**
   * Edited arguments and input values checked against the tool's schema and returned as normalised JSON text; the
   * first invalid one is the refusal. Decisions without edits pass as they are.
   */
  private async validated(decisions: Decision[]): Promise<{ decisions: Decision[]; problem?: string }> {
    if (!patched('edited-arguments')) return { decisions, problem: 'this run started before edited arguments existed; approve or reject as is' };
    const out: Decision[] = [];
    for (const d of decisions) {
      if (!needsValidation(d)) {
        out.push(d);
        continue;
      }
      const call = this.state.book.call(d.callId);
      if (!call) return { decisions, problem: `unknown call id ${d.callId}: it is not a pending approval of this run` };
      this.state.validating += 1;
      const checked = await validateArguments({ agent: this.state.agentRef(), toolName: call.toolName, arguments: argumentsToValidate(call.arguments, d), ...this.state.mcpTool(call.toolName) }).finally(() => (this.state.validating -= 1));
      if (!checked.ok) return { decisions, problem: invalidEdit(d, call.toolName, checked.problem) };
      out.push({ ...d, editedArguments: checked.arguments });
    }
    return { decisions: out };
  }
}

/** Update handlers throw only ApplicationFailure: anything else would fail the workflow task instead of the update. */
function asUpdateFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof DecisionError) return refuse(err.message);
  return ApplicationFailure.create({ type: 'DecisionFailed', message: err instanceof Error ? err.message : String(err), nonRetryable: true });
}
