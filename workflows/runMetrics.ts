// The run's metrics, through the workflow's metric meter: it emits nothing while the run replays, so a run that
// a worker replays (after an eviction, a restart, a query) never counts twice, and it issues no commands, so it
// needs no patched(). Labels are agent, tool and outcome names only: never arguments, outputs or context.
// With no metrics configured on the worker the meter is a no-op.
import { isCancellation, metricMeter } from '@temporalio/workflow';
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
  metricMeter.createCounter(METRIC_NAMES.modelTurns, '1', 'model turns answered, by agent').add(1, { agent });
}

/** A tool activity's result (`ok` unless the tool failed or the activity did); a cancelled run's call counts nothing. */
export async function countToolCall<T extends { ok?: boolean }>(
  agent: string,
  tool: string,
  running: Promise<T>,
): Promise<T> {
  const count = (result: 'ok' | 'error') =>
    metricMeter
      .createCounter(METRIC_NAMES.toolCalls, '1', 'tool calls run, by agent, tool and result')
      .add(1, { agent, tool, result });
  try {
    const done = await running;
    count(done.ok === false ? 'error' : 'ok');
    return done;
  } catch (err) {
    if (!isCancellation(err)) count('error');
    throw err;
  }
}
