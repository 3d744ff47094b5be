// Agents as tools: each call of an `asTool` tool runs the sub-agent as a child workflow (`<parent id>/<callId>`).
// Approvals inside it surface on this run through the child's reports; decisions for them are passed on to the
// child as they came (signal countersignParentDecision; runs from before patch relayedDecisions send the matching
// approve/reject/… signal instead), and a child that refuses one says so in its next report (the call is pending
// here again, and this run's audit records why).
import { executeChild, getExternalWorkflowHandle, log, patched } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { signalFor } from '../core/approvals/decisionSignals';
import { PATCHES } from './patches';
import { rootCause } from '../core/run/failures';
import type { Publisher } from './publisher';
import type { PlannedCall } from '../core/approvals/plannedCall';
import {
  type Decision,
  WORKFLOW_TYPE,
  approveSignal,
  extendSignal,
  parentDecisionSignal,
  provideInputSignal,
  provideResultSignal,
  rejectSignal,
} from '../contract/messages';
import { type AppliedDecision, type ChildReport, type RunResult } from '../contract/runViews';
import { readAlwaysRuleKey } from '../contract/alwaysRuleKey';

const signals = {
  approve: approveSignal,
  reject: rejectSignal,
  provideInput: provideInputSignal,
  provideResult: provideResultSignal,
  extend: extendSignal,
};

export class SubRuns {
  constructor(
    private readonly state: AgentRunState,
    private readonly workflowId: string,
    private readonly publisher: Publisher,
    private readonly now: () => string,
  ) {}

  private publish(): void {
    this.publisher.publish();
  }

  /** Runs the sub-agent for one call; its final output is the call's output (a failure is told to the model). */
  async run(call: PlannedCall, subAgent: string): Promise<string> {
    const s = this.state;
    const subRunWorkflowId = `${this.workflowId}/${call.callId}`;
    const share = 'shareAlwaysRules' in call && call.shareAlwaysRules;
    const rules = share
      ? Object.fromEntries(
          Object.entries(s.book.state.sticky).map(([key, rule]) => [readAlwaysRuleKey(key)?.toolName ?? key, rule]),
        )
      : undefined;
    s.childStarted(subRunWorkflowId, call);
    this.publish();
    try {
      const result = await executeChild<(input: unknown) => Promise<RunResult>>(WORKFLOW_TYPE, {
        workflowId: subRunWorkflowId,
        args: [
          {
            agent: subAgent,
            input: requestOf(call) || '(no input)',
            context: s.input.context ?? {},
            ...(rules && Object.keys(rules).length ? { alwaysRules: rules } : {}),
            subRunPath: s.input.subRunPath ? `${s.input.subRunPath} > ${call.toolName}` : call.toolName,
          },
        ],
        staticSummary: `${subAgent} for ${s.agentRef().name} (call ${call.callId})`,
      });
      return result.finalOutput;
    } catch (err) {
      return `The ${subAgent} agent failed: ${rootCause(err).message}`;
    } finally {
      s.childEnded(subRunWorkflowId);
      this.publish();
    }
  }

  /** A child reported what it waits for; refusals of decisions passed on to it go into this run's audit. */
  onReport(report: ChildReport): void {
    if (!this.state.applyChildReport(report)) return;
    for (const r of report.refused ?? []) {
      const subRunWorkflowId = r.runId ?? report.childWorkflowId; // runId: the wire's name for it
      log.warn('sub-run refused a decision passed on to it', {
        subRunWorkflowId,
        callId: r.callId,
        because: r.because,
      });
      const because = `sub-run ${subRunWorkflowId} refused it: ${r.because}`;
      this.state.book.ignore({ callId: r.callId }, because, this.now(), 'signal');
      this.publisher.relayRefusal({ ...r, runId: subRunWorkflowId });
    }
    this.publish();
  }

  /** Passes a decision for a child's call on to that child as it came (checked here once; the child checks it again, as its own). */
  forward(subRunWorkflowId: string, d: Decision): AppliedDecision {
    const child = getExternalWorkflowHandle(subRunWorkflowId);
    const legacy = patched(PATCHES.relayedDecisions) ? undefined : signalFor(d);
    const sent = legacy
      ? child.signal(signals[legacy.name], legacy.payload as never)
      : child.signal(parentDecisionSignal, d);
    sent.catch((err) =>
      log.warn('could not forward a decision to the sub-run', {
        subRunWorkflowId,
        callId: d.callId,
        error: rootCause(err).message,
      }),
    );
    this.state.forwardedTo(d.callId);
    const toolName =
      this.state.children.get(subRunWorkflowId)?.pending.find((p) => p.callId === d.callId)?.toolName ?? '';
    log.info('decision forwarded to sub-run', { subRunWorkflowId, callId: d.callId, decision: d.decision });
    this.publish();
    return { callId: d.callId, toolName, outcome: 'forwarded', ...(d.approver ? { approver: d.approver } : {}) };
  }
}

/** The sub-agent's request: the call's `input` argument. */
function requestOf(call: PlannedCall): string {
  try {
    return String((JSON.parse(call.arguments) as { input?: unknown }).input ?? '');
  } catch {
    return '';
  }
}
