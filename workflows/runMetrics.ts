// The run's metrics, through the workflow's metric meter: it emits nothing while the run replays, so a run that
// a worker replays (after an eviction, a restart, a query) never counts twice, and it issues no commands, so it
// needs no patched(). Labels are agent, tool and outcome names only: never arguments, outputs or context.
// With no metrics configured on the worker the meter is a no-op. The tool-call metric is counted where the tool's
// activity returns (TurnCalls.execute, turnCalls.ts), with no wrapper of its own.
import { metricMeter, workflowInfo } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { ApprovalMeter, METRIC_NAMES } from '../core/run/meteredEvents';

/** Approvals requested and decided, read from the book each time the run publishes a change (publisher.ts). */
export class RunMetrics {
  private readonly approvals: ApprovalMeter;

  constructor(state: AgentRunState) {
    this.approvals = new ApprovalMeter(state.book.state);
  }

  observe(): void {
    const { requested, decided } = this.approvals.take();
    // The meter drops what a replay counts (each add asks isReplaying after composing its tags): ask once, first.
    if (workflowInfo().unsafe.isReplaying) return;
    if (requested.length) {
      const counter = metricMeter.createCounter(
        METRIC_NAMES.approvalsRequested,
        '1',
        'approvals requested, by agent and tool',
      );
      for (const r of requested) counter.add(1, { agent: r.agent, tool: r.tool });
    }
    if (!decided.length) return;
    const counter = metricMeter.createCounter(
      METRIC_NAMES.approvalsDecided,
      '1',
      'approvals decided, by agent, tool and outcome',
    );
    const wait = metricMeter.createHistogram(
      METRIC_NAMES.approvalWait,
      'float',
      's',
      'from request to decision, in seconds',
    );
    for (const d of decided) {
      const tags = { agent: d.agent, tool: d.tool, outcome: d.outcome };
      counter.add(1, tags);
      wait.record(d.waitSeconds, tags);
    }
  }
}

/** One model turn answered. */
export function countModelTurn(agent: string): void {
  if (workflowInfo().unsafe.isReplaying) return;
  metricMeter.createCounter(METRIC_NAMES.modelTurns, '1', 'model turns answered, by agent').add(1, { agent });
}
