// A gated call's caller may come back for an answer its run gave after the caller stopped waiting: a blocking MCP
// call told to call again past --wait, a hook request whose wait ran out. A person often decides in between, so the
// next identical request (same principal, tool and arguments: the same workflow id) gets the answer of the run that
// ended since, once, instead of starting a new run that asks a person again. What was handed out is this process's
// memory, so only runs that ended since it started count (after a restart an older answer is never handed out
// twice; that call is asked anew), and only for KEPT_MS; both bound what it keeps.
import type { Client } from '@temporalio/client';
import { callOutcomeUpdate, gatewayAnswerQuery } from '../contract/gatewayMessages';
import type { CallRun } from './gatedCalls';

/** How long an answer no request has collected is kept for the next identical request. */
export const KEPT_MS = 60 * 60_000;

export class OwedResults {
  /** Runs whose answer a request had, and when: forgotten after KEPT_MS, when they no longer count anyway. */
  private readonly collected = new Map<string, number>();
  private readonly since = Date.now();

  /**
   * The run of this id a request takes up rather than start one: the open one (joined by its run id, so it cannot end
   * and make way for a new run in between), or one that ended lately whose answer no request has had yet.
   */
  async reusable(client: Client, workflowId: string): Promise<CallRun | undefined> {
    const d = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
    if (d?.status.name === 'RUNNING') {
      const run = { workflowId, runId: d.runId };
      return (await this.handedOut(client, run)) ? undefined : run;
    }
    if (!d?.closeTime || d.status.name !== 'COMPLETED' || this.collected.has(d.runId)) return undefined;
    const ended = d.closeTime.getTime();
    return ended >= this.since && Date.now() - ended < KEPT_MS ? { workflowId, runId: d.runId } : undefined;
  }

  /**
   * An ask-only run that stays open for its outcome after answering (change callOutcomes): once its answer was handed
   * out (here, or before this process started), its wait for the outcome ends, so the same request starts a new run.
   */
  private async handedOut(client: Client, run: CallRun): Promise<boolean> {
    const handle = client.workflow.getHandle(run.workflowId, run.runId);
    const answer = await handle.query(gatewayAnswerQuery).catch(() => null); // no such query: not an ask-only run
    if (!answer || (!this.collected.has(run.runId) && Date.parse(answer.answeredAt) >= this.since)) return false;
    await handle.executeUpdate(callOutcomeUpdate, { args: [{}] }).catch(() => undefined);
    await handle.result().catch(() => undefined);
    return true;
  }

  /** A request had this run's answer: the same request again is a new call. */
  collect(run: CallRun, now = Date.now()): void {
    this.collected.set(run.runId, now);
    for (const [runId, at] of this.collected) {
      if (now - at < KEPT_MS) break; // in the order collected: the rest are newer
      this.collected.delete(runId);
    }
  }

  get size(): number {
    return this.collected.size;
  }
}
