// The one intake for decisions: the signals, the `decide` update (validator and handler), and decisions a parent
// run passes on to this sub-run (as signals) all go through `take`. A decision is parsed (core/approvals/
// decisionIntake.ts), its token's claims read once (core/signing/signedDecisions.ts), routed to this run's book or
// to the sub-run that holds the call, and — where it carries a token, edited arguments or input values — checked in
// activities before the book's rules are asked again and it applies. Signals cannot answer, so a refused one is
// audited as `ignored`; the update refuses with an ApplicationFailure and changes nothing. Approver names are
// admitted and compared by one rule (contract/approverName.ts; runNames keeps older histories replaying).
import { ApplicationFailure, condition, log } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { AgentRunState } from '../core/run/agentRunState';
import { DecisionError } from '../core/approvals/approvalBook';
import {
  type Claimed,
  type SignalKind,
  type Via,
  argumentsToValidate,
  decisionFromSignal,
  invalidEdit,
  needsValidation,
  parseDecide,
  routeBatch,
} from '../core/approvals/decisionIntake';
import type { BookDecision } from '../core/approvals/decisionRules';
import { readToken, stillAuthorized } from '../core/signing/signedDecisions';
import { addInputPayloadSchema, type Decision } from '../contract/messages';
import { describeZodError } from '../contract/zodErrors';
import { canonicalNames, type NameRule } from '../contract/approverName';
import { runNames } from './approverNames';
import { type AppliedDecision, type DecideResult } from '../contract/runViews';
import { validateArguments, verifyDecisionTokens } from './activityProxies';
import type { Publisher } from './publisher';
import type { SubRuns } from './subRuns';

/** A refusal of the update: final for this request (the CLI and clients do not suggest retrying). */
const refuse = (message: string) =>
  ApplicationFailure.create({ type: Failure.DecisionRejected, message, nonRetryable: true });

type Taken = { applied: AppliedDecision[] } | { problem: string };

export class DecisionDesk {
  constructor(
    private readonly state: AgentRunState,
    private readonly publisher: Publisher,
    private readonly subRuns: SubRuns,
    private readonly now: () => string,
    /** The workflow id tokens must name: the top run's. */
    private readonly tokenRun: string,
  ) {}

  signal(kind: SignalKind, raw: unknown): void | Promise<void> {
    const intake = decisionFromSignal(kind, raw);
    if ('problem' in intake) return this.ignore(intake.problem, intake.claimed);
    const d = intake.decision;
    // A decision can reach the run in the very workflow task whose model result books the call it names (its sender
    // read the call from a query answered with that result), and signals are handled before results: such a
    // decision waits for the rest of this activation, results included. (The update's validator refuses it instead.)
    if (!this.knows(d.callId)) return condition(() => true).then(() => this.settleSignal(this.take([d], 'signal'), d));
    return this.settleSignal(this.take([d], 'signal'), d);
  }

  /** A signal's refusal is audited the moment it is known, so the audit keeps the order signals came in. */
  private settleSignal(taken: Taken | Promise<Taken>, d: Decision): void | Promise<void> {
    if (taken instanceof Promise) return taken.then((t) => this.settleSignal(t, d));
    if ('problem' in taken) this.ignore(taken.problem, d);
  }

  /** The update's validator: refuses a malformed or inapplicable request before it enters history (no marker: canonicalNames). */
  validate(payload: unknown): void {
    const parsed = parseDecide(payload);
    if ('problem' in parsed) throw refuse(parsed.problem);
    const routed = this.route(parsed.payload.decisions, canonicalNames);
    if ('problem' in routed) throw refuse(routed.problem);
  }

  /** The update's handler: applies the whole batch or nothing (every error it throws is an ApplicationFailure). */
  async update(payload: unknown): Promise<DecideResult> {
    try {
      const parsed = parseDecide(payload);
      if ('problem' in parsed) throw refuse(parsed.problem);
      const { decisions, inputs } = parsed.payload;
      const taken: Taken = decisions.length ? await this.take(decisions, 'update') : { applied: [] };
      if ('problem' in taken) throw refuse(taken.problem);
      if (inputs?.length) this.queueInputs(inputs);
      return {
        applied: taken.applied,
        stillPending: this.state.allPending().map((c) => c.callId),
        ...(inputs?.length ? { inputsQueued: this.state.queuedInputs.length } : {}),
      };
    } catch (err) {
      throw asUpdateFailure(err);
    }
  }

  addInput(raw: unknown): void {
    const parsed = addInputPayloadSchema.safeParse(raw);
    if (!parsed.success) return log.warn('addInput signal ignored', { why: describeZodError(parsed.error) });
    this.queueInputs([parsed.data.message]);
  }

  /**
   * The intake. Plain decisions apply at once, in the handler's own call; those with a token, edited arguments or
   * input values after their checks. A batch applies whole or not at all.
   */
  private take(decisions: Decision[], via: Via): Taken | Promise<Taken> {
    const routed = this.route(decisions, runNames);
    if ('problem' in routed) return routed;
    const finish = (local: BookDecision[]): Taken => {
      const applied = local.length ? this.apply(local, via) : [];
      for (const f of routed.forward) applied.push(this.subRuns.forward(f.childId, f.decision));
      return { applied };
    };
    if (!routed.local.some((d) => needsValidation(d) || d.signed)) return finish(routed.local);
    return this.checked(routed.local, decisions).then((checked) =>
      'problem' in checked ? checked : finish(checked.decisions),
    );
  }

  /** The check the validator and the handlers share: tokens read, then each decision routed (or the batch refused). */
  private route(decisions: Decision[], names: NameRule): ReturnType<typeof routeBatch<BookDecision>> {
    const read = this.read(decisions);
    return 'problem' in read ? read : routeBatch(this.state, read.decisions, names);
  }

  private knows(callId: string): boolean {
    return this.state.book.call(callId) !== undefined || this.state.childOwning(callId) !== undefined;
  }

  private queueInputs(messages: string[]): void {
    this.state.queueInputs(messages);
    log.info('user input queued for the next turn', { count: messages.length });
  }

  private apply(decisions: BookDecision[], via: Via): AppliedDecision[] {
    const applied = this.state.book.decide(decisions, this.now(), via, runNames);
    for (const a of applied)
      log.info('decision applied', {
        callId: a.callId,
        tool: a.toolName,
        outcome: a.outcome,
        approver: a.approver,
        via,
        ...(a.verified ? { verified: true } : {}),
      });
    this.publisher.publish();
    return applied;
  }

  /** A signal that changes nothing: logged, audited as ignored, and (in a sub-run) reported to the parent that passed it on. */
  private ignore(why: string, who: Claimed): void {
    log.warn('signal ignored', { why });
    this.state.book.ignore(who, why, this.now(), 'signal');
    if (typeof who.callId === 'string') this.publisher.refuse(who.callId, why);
  }

  private tokenContext(seen: Set<string> = new Set()) {
    return {
      wf: this.tokenRun,
      nowSeconds: Math.floor(Date.now() / 1000),
      jtiUsed: (jti: string) => seen.has(jti) || this.state.book.jtiUsed(jti),
    };
  }

  /** Decisions with tokens read as their tokens say (claims checked now, by workflow time); a token counts once per batch. */
  private read(decisions: Decision[]): { decisions: BookDecision[] } | { problem: string } {
    const seen = new Set<string>();
    const ctx = this.tokenContext(seen);
    const out: BookDecision[] = [];
    for (const d of decisions) {
      const call =
        this.state.book.call(d.callId) ??
        this.state.childOwning(d.callId)?.[1].pending.find((p) => p.callId === d.callId);
      const read = readToken(d, call, ctx);
      if ('problem' in read) return read;
      if (read.decision.signed) seen.add(read.decision.signed.jti);
      out.push(read.decision);
    }
    return { decisions: out };
  }

  /**
   * Token signatures against the worker's approver keys, edits and input values against the tool's schema (both in
   * activities); then, since another decision may have landed or a token expired meanwhile, the book's rules again.
   */
  private async checked(
    decisions: BookDecision[],
    batch: Decision[],
  ): Promise<{ decisions: BookDecision[] } | { problem: string }> {
    this.state.validationStarted();
    try {
      const signed = decisions.filter((d) => d.signed);
      if (signed.length) {
        const answers = await verifyDecisionTokens(signed.map((d) => d.token!));
        const bad = answers.findIndex((a) => !a.ok);
        if (bad >= 0)
          return {
            problem: `decision for call ${signed[bad]!.callId} refused: ${(answers[bad] as { problem: string }).problem}`,
          };
      }
      const validated = await this.validated(decisions);
      if ('problem' in validated) return validated;
      const ctx = this.tokenContext();
      for (const d of validated.decisions) {
        const why = this.state.book.check(d, batch, runNames) ?? stillAuthorized(d, ctx);
        if (why) return { problem: why };
      }
      return validated;
    } finally {
      this.state.validationEnded();
    }
  }

  /** Edited arguments and input values checked against the tool's schema and normalised; the first invalid one is the refusal. */
  private async validated(decisions: BookDecision[]): Promise<{ decisions: BookDecision[] } | { problem: string }> {
    const out: BookDecision[] = [];
    for (const d of decisions) {
      const call = this.state.book.call(d.callId);
      if (!needsValidation(d) || !call) {
        out.push(d);
        continue;
      }
      const checked = await validateArguments({
        agent: this.state.agentRef(),
        toolName: call.toolName,
        arguments: argumentsToValidate(call.arguments, d),
        ...this.state.mcpTool(call.toolName),
      });
      if (!checked.ok) return { problem: invalidEdit(d, call.toolName, checked.problem) };
      out.push({ ...d, editedArguments: checked.arguments });
    }
    return { decisions: out };
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
