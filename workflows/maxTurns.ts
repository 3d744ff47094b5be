// What a run does when it has used its maxTurns (onMaxTurns: the run's own, else its agent snapshot's). 'fail' is the
// loop's own MaxTurnsExceeded and takes no path here. 'final_output': one more model turn with tool_choice 'none', whose
// answer completes the run. 'ask': a person allows more turns or stops the run, through an `input` item of the
// approval book (core/run/maxTurnsAsk.ts) decided like any other; its wait terms are the agent's and the run's
// approval policy (timeout, onTimeout, reminders, escalation, approvers). Only runs whose snapshot or input carry a
// value other than 'fail' come here, so recorded histories meet nothing new.
import { ApplicationFailure } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import type { ModelSettings } from '../contract/modelSettings';
import type { AgentRunState } from '../core/run/agentRunState';
import { type WaitingCall, bookingFor } from '../core/approvals/plannedCall';
import { callContext } from '../core/approvals/callContext';
import { waitTermsOf } from '../core/approvals/waitTerms';
import { MAX_TURNS_TOOL, maxTurnsCallId } from '../core/approvals/itemIds';
import { MAX_MORE_TURNS, turnsAllowed } from '../core/run/maxTurnsAsk';
import type { RunParts } from './askPerson';

export const MAX_TURNS_REJECTION = 'The run was stopped at its turn limit.';

export class MaxTurns {
  /** 'final_output' was reached: the turn in progress is the last, offered no tool, and its answer completes the run. */
  finalTurn = false;

  constructor(
    private readonly state: AgentRunState,
    private readonly parts: RunParts,
  ) {}

  /** The run's own onMaxTurns, else its agent's (the snapshot holds only 'final_output' and 'ask'), else 'fail'. */
  mode(): 'fail' | 'final_output' | 'ask' {
    return this.state.input.onMaxTurns ?? this.state.agent?.onMaxTurns ?? 'fail';
  }

  /** The turns the run may take: maxTurns, plus what people allowed ('ask' only). */
  limit(): number {
    const s = this.state;
    return this.mode() === 'ask' ? s.maxTurns + turnsAllowed(s.book.state) : s.maxTurns;
  }

  /** On the final turn, tool_choice 'none': the model sees its tools and the calls so far, and may only answer. */
  settings(settings: ModelSettings | undefined): ModelSettings | undefined {
    return this.finalTurn ? { ...settings, toolChoice: 'none' } : settings;
  }

  /** The limit is reached: 'final_output' marks the last turn; 'ask' returns once a person allowed more, or throws. */
  async reached(): Promise<void> {
    if (this.mode() === 'final_output') {
      this.finalTurn = true;
      return;
    }
    const s = this.state;
    const { ask, publish, now } = this.parts;
    const used = this.limit();
    const callId = maxTurnsCallId(used);
    // Asked once: a run that continued as new while the question waited goes on waiting for it.
    if (!s.book.call(callId)) {
      const booking = bookingFor(this.question(callId), { agentName: s.agentRef().name }, now());
      ask.book([{ booking: { ...booking, ...callContext(s.input.input, s.items, callId) } }]);
    }
    const call = await ask.decision(callId);
    if (call.state === 'approved') return publish();
    const who = [...s.book.state.audit].reverse().find((a) => a.callId === callId && a.decision !== 'ignored');
    const by = who?.approver ? `${who.approver} stopped the run` : 'the run was stopped';
    throw ApplicationFailure.nonRetryable(
      `the agent used all ${used} turns without a final answer; ${by}: ${call.rejectionOutput ?? MAX_TURNS_REJECTION}`,
      Failure.MaxTurnsExceeded,
    );
  }

  /** The question as a planned `input` call: how many more turns (proposed: maxTurns again), on the run's approval terms. */
  private question(callId: string): WaitingCall {
    const s = this.state;
    return {
      callId,
      toolName: MAX_TURNS_TOOL,
      arguments: JSON.stringify({ turns: Math.min(s.maxTurns, MAX_MORE_TURNS), used: this.limit() }),
      disposition: 'input',
      fields: ['turns'],
      rejectionText: MAX_TURNS_REJECTION,
      wait: waitTermsOf({ kind: 'input', defined: s.agent?.policy ?? {}, run: s.runPolicy }),
    };
  }
}
