// The agent's input and output guardrails, on the workflow's side. Only a run whose agent snapshot lists guardrails
// comes here: the runGuardrails activity (activities/guardrails.ts) runs their code on the worker, and a tripped one
// either fails the run (onTripwire 'fail': InputGuardrailTripwireTriggered / OutputGuardrailTripwireTriggered, with
// { guardrail, outputInfo } in its details, audited `tripped`) or waits for a person: a pending item of kind
// `guardrail`, booked in the approval book and waited on as every call is (notifications, timers, decide, signals,
// inbox, audit, metrics). Approved, the run goes on as if it passed; rejected, an input guardrail fails the run with
// the person's message, and an output guardrail's message goes to the model, which answers again.
import { ApplicationFailure } from '@temporalio/workflow';
import type { GuardrailOutcome } from '../activities/guardrails';
import { Failure } from '../contract/failureTypes';
import type { ConversationItem } from '../contract/items';
import type { AgentRunState } from '../core/run/agentRunState';
import { bookingFor, type WaitTerms } from '../core/approvals/plannedCall';
import type { Booking } from '../core/approvals/approvalBook';
import { guardrailItem } from '../core/approvals/itemIds';
import { callContext } from '../core/approvals/callContext';
import { shorten } from '../core/approvals/callSummary';
import { runGuardrails, withAgent } from './activityProxies';
import { assistantText } from '../core/run/outputType';
import type { RunParts } from './askPerson';

type Stage = 'input' | 'output';

/** What the pending item shows of what was checked. */
const CHECKED_MAX = 1_000;

export class GuardrailGate {
  constructor(
    private readonly state: AgentRunState,
    private readonly workflowId: string,
    private readonly parts: RunParts,
  ) {}

  /** The agent in charge has guardrails of this stage (its snapshot says so): else nothing runs and no command is issued. */
  has(stage: Stage): boolean {
    return this.state.agent?.guardrails?.some((g) => g.stage === stage) ?? false;
  }

  /**
   * The user's words the coming turn adds, read before it starts: the run's input on its first turn, then messages
   * added with add-input. Undefined without input guardrails, or with nothing new.
   */
  newInput(): string | undefined {
    if (!this.has('input')) return undefined;
    const words = [...(this.state.turn === 0 ? [this.state.input.input] : []), ...this.state.queuedInputs];
    return words.length ? words.join('\n\n') : undefined;
  }

  /**
   * Starts checking the turn's new input, alongside the model call (as the Agents SDK runs input guardrails): the run
   * awaits it before acting on the model's answer. Undefined (no promise at all) when there is nothing to check.
   */
  checkInput(words: string | undefined): Promise<unknown> | undefined {
    if (words === undefined) return undefined;
    const checking = this.check('input', words);
    void checking.catch(() => undefined); // a tripwire is raised where the run awaits it, after the model call
    return checking;
  }

  /**
   * Checks the final output before the run completes: true when it may complete; false when a person rejected it,
   * whose message the model now has (it answers again).
   */
  async checkOutput(items: readonly ConversationItem[]): Promise<boolean> {
    const output = assistantText(items);
    const rejected = await this.check('output', output);
    if (rejected.length === 0) return true;
    this.state.tellModel(rejected.join('\n'));
    this.parts.publish();
    return false;
  }

  /** Runs the stage's guardrails; returns the messages of rejected asks (an input stage fails the run instead). */
  private async check(stage: Stage, checked: string): Promise<string[]> {
    const s = this.state;
    const turn = s.turn;
    const report = await withAgent(s, this.parts.publish, () =>
      runGuardrails.executeWithOptions({ summary: `${stage} guardrails` }, [
        {
          workflowId: this.workflowId,
          agent: s.agentRef(),
          stage,
          checked,
          turn,
          context: s.input.context ?? {},
          ...(Object.keys(s.runPolicy).length ? { policy: s.runPolicy } : {}),
        },
      ]),
    );
    const tripped = report.results.filter((r) => r.tripwireTriggered);
    const failing = tripped.find((r) => r.onTripwire === 'fail');
    if (failing) throw this.tripwire(stage, failing, checked, `guardrail ${failing.name} tripped`, turn);
    const asks = tripped.map((r) => this.ask(stage, r, checked, turn, r.wait ?? report.wait ?? {}));
    const decided = await Promise.all(asks);
    const rejected = decided.filter((d) => d.rejected !== undefined);
    if (stage === 'input' && rejected.length) {
      const { r, rejected: message } = rejected[0]!;
      throw this.tripwire(stage, r, checked, `guardrail ${r.name} tripped and a person rejected it: ${message}`);
    }
    return rejected.map((d) => d.rejected!);
  }

  /** Books a tripped 'ask' guardrail as a pending item of kind `guardrail` and waits for its decision. */
  private async ask(
    stage: Stage,
    r: GuardrailOutcome,
    checked: string,
    turn: number,
    wait: WaitTerms,
  ): Promise<{ r: GuardrailOutcome; rejected?: string }> {
    const s = this.state;
    const requestedAt = this.parts.now();
    const rejectionText = `The ${stage} guardrail ${r.name} tripped and a person did not overrule it.`;
    const planned = {
      ...guardrailItem(r.name, stage, checked, turn),
      disposition: 'approval' as const,
      rejectionText,
      wait,
    };
    const { request } = callContext(s.input.input, s.items, planned.callId);
    const booking: Booking = {
      ...bookingFor(planned, { agentName: s.agentRef().name }, requestedAt),
      kind: 'guardrail',
      guardrail: {
        name: r.name,
        stage,
        checked: shorten(checked, CHECKED_MAX),
        ...(r.outputInfo !== undefined ? { outputInfo: r.outputInfo } : {}),
      },
      ...(request ? { request } : {}),
    };
    const call = await this.parts.ask.ask({ booking });
    if (call.state === 'approved') return { r };
    return { r, rejected: call.rejectionOutput ?? rejectionText };
  }

  /** The run's failure for a tripped guardrail: its type, one line, { guardrail, outputInfo } as details; audited. */
  private tripwire(stage: Stage, r: GuardrailOutcome, checked: string, why: string, turn?: number): ApplicationFailure {
    if (turn !== undefined)
      this.state.book.recordTripped(
        {
          ...guardrailItem(r.name, stage, checked, turn),
          ...(r.outputInfo !== undefined ? { message: shorten(JSON.stringify(r.outputInfo), 500) } : {}),
        },
        this.parts.now(),
      );
    return ApplicationFailure.create({
      type: stage === 'input' ? Failure.InputGuardrailTripwireTriggered : Failure.OutputGuardrailTripwireTriggered,
      message: `${stage} ${why}`,
      nonRetryable: true,
      details: [{ guardrail: r.name, outputInfo: r.outputInfo ?? null }],
    });
  }
}
