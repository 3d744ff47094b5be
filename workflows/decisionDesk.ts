// The one intake for decisions: the signals, the `decide` update (validator and handler), and decisions a parent
// run passes on to this sub-run (signal countersignParentDecision, or, from runs before it, the plain signals) all go
// through core/approvals/decisionIntake.ts: tokens' claims read once, each decision checked once per stage (the
// validator's, the handler's) and routed to this run's book or to the sub-run that holds the call; tokens, edited
// arguments and input values checked in activities before the book applies what was checked. Signals cannot answer,
// so a refused one is audited as `ignored`; the update refuses with an ApplicationFailure and changes nothing.
// Approver names are admitted and compared by one rule (contract/approverName.ts; runNames keeps older histories
// replaying).
import { ApplicationFailure, condition, log } from '@temporalio/workflow';
import { Failure, refusalOf } from '../contract/failureTypes';
import type { AgentRunState } from '../core/run/agentRunState';
import { DecisionError } from '../core/approvals/approvalBook';
import {
  type Claimed,
  type Intake,
  type IntakeChecks,
  type SignalKind,
  type Via,
  admitDecisions,
  decisionFromSignal,
  parseDecide,
  takeDecisions,
} from '../core/approvals/decisionIntake';
import { addInputPayloadSchema, decisionSchema, type Decision, type DecidePayload } from '../contract/messages';
import { describeZodError } from '../contract/zodErrors';
import { canonicalNames } from '../contract/approverName';
import { runNames } from './approverNames';
import { type AppliedDecision, type DecideResult, type RunView } from '../contract/runViews';
import { hasChange } from './patches';
import { validateArguments, verifyDecisionTokens } from './activityProxies';
import type { Publisher } from './publisher';
import type { SubRuns } from './subRuns';

const refuse = refusalOf(Failure.DecisionRejected);

type Taken = { applied: AppliedDecision[] } | { problem: string };

export class DecisionDesk {
  private readonly checks: IntakeChecks;
  /** Decisions signalled for calls not booked yet, in the order they came (hold). */
  private readonly held: Decision[] = [];

  constructor(
    private readonly state: AgentRunState,
    private readonly publisher: Publisher,
    private readonly subRuns: SubRuns,
    private readonly now: () => string,
    /** The workflow id tokens must name: the top run's. */
    tokenRun: string,
  ) {
    this.checks = {
      names: runNames,
      tokenRun,
      nowSeconds: () => Math.floor(Date.now() / 1000),
      verifyTokens: (tokens) => verifyDecisionTokens(tokens),
      validate: (call, given) =>
        validateArguments({
          agent: state.agentRef(),
          toolName: call.toolName,
          ...given,
          ...state.mcpTool(call.toolName),
        }),
    };
  }

  signal(kind: SignalKind, raw: unknown): void | Promise<void> {
    const intake = decisionFromSignal(kind, raw);
    if ('problem' in intake) return this.ignore(intake.problem, intake.claimed);
    return this.fromSignal(intake.decision);
  }

  /** A decision the parent run passed on, as it came: the contract's Decision, taken as a signal is. */
  relayed(raw: unknown): void | Promise<void> {
    const parsed = decisionSchema.safeParse(raw);
    if (!parsed.success)
      return this.ignore(
        `malformed decision from the parent run: ${describeZodError(parsed.error)}`,
        (raw ?? {}) as Claimed,
      );
    return this.fromSignal(parsed.data);
  }

  private fromSignal(d: Decision): void | Promise<void> {
    // A decision can reach the run in the very workflow task whose model result books the call it names (its sender
    // read the call from a query answered with that result), and signals are handled before results: such a
    // decision waits for the rest of this activation, results included. (The update's validator refuses it instead.)
    if (this.knows(d.callId)) return this.takeSignal(d);
    if (hasChange(this.state.agent, 'heldDecisions')) return this.hold(d);
    return condition(() => true).then(() => this.takeSignal(d));
  }

  private takeSignal(d: Decision): void | Promise<void> {
    const taken = this.take([d], 'signal');
    // A signal's refusal is audited the moment it is known, so the audit keeps the order signals came in.
    const audit = (t: Taken): void => {
      if ('problem' in t) this.ignore(t.problem, d);
    };
    return taken instanceof Promise ? taken.then(audit) : audit(taken);
  }

  /**
   * A decision whose call is not booked yet (patch heldDecisions). The worker that ran the task live may have run
   * its model result in an activation of its own (to answer a query) and the signals in the next; replay gives them
   * in one, signals first. So the run publishes the same in both: once the call is booked, held decisions apply at
   * a condition check, in the order they came, each after the state before it was published and followed by its
   * own publication, as a signal in an activation of its own is. One still unknown where the old code took it (the
   * first microtask after its signal's check) is not in this task's results and is refused, as before.
   */
  private hold(d: Decision): Promise<void> {
    this.held.push(d);
    if (this.held.length === 1) condition(() => this.applyHeld()).catch(() => undefined);
    return condition(() => true).then(() => {
      const at = this.held.indexOf(d);
      if (at < 0 || this.knows(d.callId)) return;
      this.held.splice(at, 1);
      return this.takeSignal(d);
    });
  }

  private applyHeld(): boolean {
    if (!this.held.length || !this.knows(this.held[0]!.callId)) return this.held.length === 0;
    this.publisher.settle();
    while (this.held.length && this.knows(this.held[0]!.callId)) {
      // A decision with checks (a token, edited arguments) goes on in its local activities, as a signal's does.
      const taking = this.takeSignal(this.held.shift()!);
      if (taking instanceof Promise) taking.catch(() => undefined);
      this.publisher.settle();
    }
    return this.held.length === 0;
  }

  /** The update's validator: refuses a malformed or inapplicable request before it enters history (no marker: canonicalNames). */
  validate(payload: unknown): void {
    const parsed = parseDecide(payload);
    if ('problem' in parsed) throw refuse(parsed.problem);
    const admitted = admitDecisions(this.state, parsed.payload.decisions, canonicalNames, this.checks);
    if ('problem' in admitted) throw refuse(admitted.problem);
  }

  /**
   * The `decide` update: the batch applies as without `waitForPause`; with it, the answer then waits for the pause
   * (`untilPause`). hasChange is asked only then. The same chain of promises as when this lived in agentRun.ts.
   */
  decide(payload: DecidePayload, untilPause: () => Promise<RunView>): Promise<DecideResult | RunView> {
    if (this.state.agent !== undefined && hasChange(this.state.agent, 'leanPromises'))
      return this.decideLean(payload, untilPause);
    return payload?.waitForPause === true
      ? this.update(payload).then<DecideResult | RunView>((r) =>
          hasChange(this.state.agent, 'decideWaits') ? untilPause() : r,
        )
      : this.update(payload);
  }

  /** The update's handler: applies the whole batch or nothing (every error it throws is an ApplicationFailure). */
  async update(payload: unknown): Promise<DecideResult> {
    try {
      const parsed = parseDecide(payload);
      if ('problem' in parsed) throw refuse(parsed.problem);
      const { decisions, inputs } = parsed.payload;
      const taken: Taken = decisions.length ? await this.take(decisions, 'update') : { applied: [] };
      return this.answer(taken, inputs);
    } catch (err) {
      throw asUpdateFailure(err);
    }
  }

  /**
   * `decide` in runs with change leanPromises (decideWaits implied): a batch that applies at once is answered
   * without an async frame and its await, and one sent with waitForPause gets the pause's promise itself.
   */
  private decideLean(payload: DecidePayload, untilPause: () => Promise<RunView>): Promise<DecideResult | RunView> {
    try {
      const parsed = parseDecide(payload);
      if ('problem' in parsed) throw refuse(parsed.problem);
      const { decisions, inputs } = parsed.payload;
      const reply = (taken: Taken): Promise<DecideResult | RunView> | DecideResult => {
        try {
          const answered = this.answer(taken, inputs);
          return payload?.waitForPause === true ? untilPause() : answered;
        } catch (err) {
          throw asUpdateFailure(err);
        }
      };
      const taken = decisions.length ? this.take(decisions, 'update') : { applied: [] };
      if (!(taken instanceof Promise)) return Promise.resolve(reply(taken));
      return taken.then(reply, (err: unknown) => Promise.reject(asUpdateFailure(err)));
    } catch (err) {
      return Promise.reject(asUpdateFailure(err));
    }
  }

  /** What the update answers once the batch was taken (refused whole when any decision was). */
  private answer(taken: Taken, inputs: string[] | undefined): DecideResult {
    if ('problem' in taken) throw refuse(taken.problem);
    if (inputs?.length) this.queueInputs(inputs);
    return {
      applied: taken.applied,
      stillPending: this.state.allPending().map((c) => c.callId),
      ...(inputs?.length ? { inputsQueued: this.state.queuedInputs.length } : {}),
    };
  }

  addInput(raw: unknown): void {
    const parsed = addInputPayloadSchema.safeParse(raw);
    if (!parsed.success) return log.warn('addInput signal ignored', { why: describeZodError(parsed.error) });
    this.queueInputs([parsed.data.message]);
  }

  /**
   * The intake: the batch checked once (takeDecisions), then this run's part applied by the book as it was checked
   * and the rest passed on to the sub-runs that hold those calls. A batch applies whole or not at all. Plain
   * decisions apply at once, in the handler's own call; those with a token, edited arguments or input values after
   * their checks (local activities).
   */
  private take(decisions: Decision[], via: Via): Taken | Promise<Taken> {
    const apply = (intake: Intake): Taken => {
      if ('problem' in intake) return intake;
      const applied = intake.local.checked.length ? this.state.book.decide(intake.local, this.now(), via) : [];
      for (const a of applied)
        log.info('decision applied', {
          callId: a.callId,
          tool: a.toolName,
          outcome: a.outcome,
          approver: a.approver,
          via,
          ...(a.verified ? { verified: true } : {}),
        });
      if (intake.local.checked.length) this.publisher.publish();
      for (const f of intake.forward) applied.push(this.subRuns.forward(f.subRunWorkflowId, f.decision));
      return { applied };
    };
    const intake = takeDecisions(this.state, decisions, this.checks);
    return intake instanceof Promise ? intake.then(apply) : apply(intake);
  }

  private knows(callId: string): boolean {
    return this.state.book.call(callId) !== undefined || this.state.childOwning(callId) !== undefined;
  }

  private queueInputs(messages: string[]): void {
    this.state.queueInputs(messages);
    log.info('user input queued for the next turn', { count: messages.length });
  }

  /** A signal that changes nothing: logged, audited as ignored, and (in a sub-run) reported to the parent that passed it on. */
  private ignore(why: string, who: Claimed): void {
    log.warn('signal ignored', { why });
    this.state.book.ignore(who, why, this.now(), 'signal');
    if (typeof who.callId === 'string') this.publisher.refuse(who.callId, why);
  }
}

/** Update handlers throw only ApplicationFailure: anything else would fail the workflow task instead of the update. */
function asUpdateFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof DecisionError) return refuse(err.message);
  return ApplicationFailure.create({
    type: Failure.DecisionFailed,
    message: err instanceof Error ? err.message : String(err),
    nonRetryable: true,
  });
}
