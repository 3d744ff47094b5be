// The workflow's side of the decision intake: signals, the `decide` update (validator and handler) and user
// messages. Every decision passes the same check (core/approvals/decisionIntake.ts); a token's claims are read first
// (core/signing/signedDecisions.ts), its signature and any edited arguments or input values are checked in activities;
// then the book applies them, or the sub-run that holds the call gets them (and checks the token itself). Signals cannot answer, so a refused one is audited as `ignored`; the update refuses with an
// ApplicationFailure and changes nothing.
import { ApplicationFailure, condition, log, patched } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { DecisionError } from '../core/approvals/approvalBook';
import { type Claimed, type SignalKind, type Via, argumentsToValidate, decisionFromSignal, invalidEdit, needsValidation, parseDecide, routeBatch, routeDecision } from '../core/approvals/decisionIntake';
import type { BookDecision } from '../core/approvals/decisionRules';
import { readToken } from '../core/signing/signedDecisions';
import { addInputPayloadSchema, describeZodError, type AppliedDecision, type DecideResult, type Decision } from '../contract/messages';
import { validateArguments, verifyDecisionTokens } from './activityProxies';
import type { Publisher } from './publisher';
import type { SubRuns } from './subRuns';

/** A refusal of the update: final for this request (the CLI and clients do not suggest retrying). */
const refuse = (message: string) => ApplicationFailure.create({ type: 'DecisionRejected', message, nonRetryable: true });

export class DecisionDesk {
  constructor(
    private readonly state: AgentRunState,
    private readonly publisher: Publisher,
    private readonly subRuns: SubRuns,
    private readonly now: () => string,
    /** The workflow id tokens must name: the top run's. */
    private readonly tokenRun: string,
  ) {}

  // Decisions without edited arguments or a token apply synchronously, in the handler's own activation, exactly
  // as runs recorded before edits existed expect on replay (test/histories); the others take the asynchronous path.
  signal(kind: SignalKind, raw: unknown, afterBooking = false): void | Promise<void> {
    const intake = decisionFromSignal(kind, raw);
    if ('problem' in intake) return this.ignore(intake.problem, intake.claimed);
    // A decision can reach the run in the very workflow task whose model result books the call it names (its
    // sender read the call from a query answered with that result), and signals are handled before results. Such
    // a decision waits until this task's results are in, then applies; one naming a call that still does not exist
    // is ignored then, as always. Runs recorded before this ignored it at once (and replay so).
    if (!afterBooking && !this.knows(intake.decision.callId) && patched('decide-after-booking')) {
      return (async () => {
        await condition(() => true); // resolves after every job of this activation, results included
        return this.signal(kind, raw, true);
      })();
    }
    const read = this.read([intake.decision]);
    if ('problem' in read) return this.ignore(read.problem, intake.decision);
    const d = read.decisions[0]!;
    const route = routeDecision(this.state, d);
    if ('problem' in route) return this.ignore(route.problem, d);
    if (route.to === 'child') return void this.subRuns.forward(route.childId, d);
    if (!needsValidation(d) && !d.signed) return void this.apply([d], 'signal');
    return (async () => {
      const checked = await this.checked([d]);
      if ('problem' in checked) return this.ignore(checked.problem, d);
      this.apply(checked.decisions, 'signal');
    })();
  }

  private knows(callId: string): boolean {
    return this.state.book.call(callId) !== undefined || this.state.childOwning(callId) !== undefined;
  }

  /** The update's validator: refuses a malformed or inapplicable request before it enters history. */
  validate(payload: unknown): void {
    const parsed = parseDecide(payload);
    if ('problem' in parsed) throw refuse(parsed.problem);
    const read = this.read(parsed.payload.decisions);
    if ('problem' in read) throw refuse(read.problem);
    const routed = routeBatch(this.state, read.decisions);
    if ('problem' in routed) throw refuse(routed.problem);
  }

  /** The update's handler: applies the whole batch or nothing (every error it throws is an ApplicationFailure). */
  update(payload: unknown): DecideResult | Promise<DecideResult> {
    try {
      const parsed = parseDecide(payload);
      if ('problem' in parsed) throw refuse(parsed.problem);
      const { inputs } = parsed.payload;
      const read = this.read(parsed.payload.decisions);
      if ('problem' in read) throw refuse(read.problem);
      const routed = routeBatch(this.state, read.decisions);
      if ('problem' in routed) throw refuse(routed.problem);
      const finish = (local: BookDecision[]): DecideResult => {
        const applied = local.length ? this.apply(local, 'update') : [];
        for (const f of routed.forward) applied.push(this.subRuns.forward(f.childId, f.decision));
        if (inputs?.length) this.queueInputs(inputs);
        return { applied, stillPending: this.state.allPending().map((c) => c.callId), ...(inputs?.length ? { inputsQueued: this.state.queuedInputs.length } : {}) };
      };
      if (!routed.local.some((d) => needsValidation(d) || d.signed)) return finish(routed.local);
      return (async () => {
        const checked = await this.checked(routed.local);
        if ('problem' in checked) throw refuse(checked.problem);
        return finish(checked.decisions);
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

  private apply(decisions: BookDecision[], via: Via): AppliedDecision[] {
    const applied = this.state.book.decide(decisions, this.now(), via);
    for (const a of applied) log.info('decision applied', { callId: a.callId, tool: a.toolName, outcome: a.outcome, approver: a.approver, via, ...(a.verified ? { verified: true } : {}) });
    this.publisher.publish();
    return applied;
  }

  /** A signal that changes nothing: logged, audited as ignored, and (in a sub-run) reported to the parent that passed it on. */
  private ignore(why: string, who: Claimed): void {
    log.warn('signal ignored', { why });
    this.state.book.ignore(who, why, this.now(), 'signal');
    if (typeof who.callId === 'string') this.publisher.refuse(who.callId, why);
  }

  /** Decisions with tokens read as their tokens say (claims checked now, by workflow time); a token counts once per batch. */
  private read(decisions: Decision[]): { decisions: BookDecision[] } | { problem: string } {
    const seen = new Set<string>();
    const ctx = { wf: this.tokenRun, nowSeconds: Math.floor(Date.now() / 1000), jtiUsed: (jti: string) => seen.has(jti) || this.state.book.jtiUsed(jti) };
    const out: BookDecision[] = [];
    for (const d of decisions) {
      const call = this.state.book.call(d.callId) ?? this.state.childOwning(d.callId)?.[1].pending.find((p) => p.callId === d.callId);
      const read = readToken(d, call, ctx);
      if ('problem' in read) return read;
      if (read.decision.signed) seen.add(read.decision.signed.jti);
      out.push(read.decision);
    }
    return { decisions: out };
  }

  /**
   * The asynchronous checks, then the synchronous ones again (another decision may have landed, or a token expired,
   * meanwhile): token signatures against the worker's approver keys, edits and input values against the tool's schema.
   */
  private async checked(decisions: BookDecision[]): Promise<{ decisions: BookDecision[] } | { problem: string }> {
    this.state.validating += 1;
    try {
      const signed = decisions.filter((d) => d.signed);
      if (signed.length) {
        const answers = await verifyDecisionTokens(signed.map((d) => d.token!));
        const bad = answers.findIndex((a) => !a.ok);
        if (bad >= 0) return { problem: `decision for call ${signed[bad]!.callId} refused: ${(answers[bad] as { problem: string }).problem}` };
      }
      const validated = await this.validated(decisions);
      if (validated.problem) return { problem: validated.problem };
      const again = this.read(decisions.map(({ signed: _s, ...d }) => d));
      if ('problem' in again) return again;
      for (const d of again.decisions) {
        const why = this.state.book.check(d, decisions);
        if (why) return { problem: why };
      }
      // Edits were normalised by the schema check; the signer and approver come from the token.
      return { decisions: validated.decisions.map((d, i) => ({ ...d, ...(again.decisions[i]!.signed ? { approver: again.decisions[i]!.approver, signed: again.decisions[i]!.signed } : {}) })) };
    } finally {
      this.state.validating -= 1;
    }
  }

  /**
   * Edited arguments and input values checked against the tool's schema and returned as normalised JSON text; the
   * first invalid one is the refusal. Decisions without edits pass as they are.
   */
  private async validated(decisions: BookDecision[]): Promise<{ decisions: BookDecision[]; problem?: string }> {
    if (!decisions.some(needsValidation)) return { decisions };
    if (!patched('edited-arguments')) return { decisions, problem: 'this run started before edited arguments existed; approve or reject as is' };
    const out: BookDecision[] = [];
    for (const d of decisions) {
      if (!needsValidation(d)) {
        out.push(d);
        continue;
      }
      const call = this.state.book.call(d.callId);
      if (!call) return { decisions, problem: `unknown call id ${d.callId}: it is not a pending approval of this run` };
      const checked = await validateArguments({ agent: this.state.agentRef(), toolName: call.toolName, arguments: argumentsToValidate(call.arguments, d), ...this.state.mcpTool(call.toolName) });
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
