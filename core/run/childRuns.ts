// A run's sub-runs (agent.asTool) and what they wait for: each reports the calls it holds, the parent lists them
// under the path of tools that leads to them, and a decision passed on to a sub-run hides its call until the sub-run
// stops listing it (or refuses the decision). Plain data, driven by AgentRunState.
import type { ChildReport, PendingApproval } from '../../contract/runViews';

/** A sub-run (agent.asTool) in progress, as it last reported. */
export interface ChildRun {
  callId: string;
  toolName: string;
  /** It waits only for people (or has nothing running). */
  waiting: boolean;
  pending: PendingApproval[];
}

export class ChildRuns {
  private readonly _byId = new Map<string, ChildRun>();
  private readonly _forwarded = new Set<string>();

  /** Sub-runs in progress, by child workflow id. */
  get byId(): ReadonlyMap<string, ChildRun> {
    return this._byId;
  }

  started(subRunWorkflowId: string, call: { callId: string; toolName: string }): void {
    this._byId.set(subRunWorkflowId, { callId: call.callId, toolName: call.toolName, waiting: false, pending: [] });
  }
  ended(subRunWorkflowId: string): void {
    this._byId.delete(subRunWorkflowId);
  }
  clear(): void {
    this._byId.clear();
  }
  /** A decision for a sub-run's call was passed on: the call is not listed here until the sub-run reports again. */
  forwardedTo(callId: string): void {
    this._forwarded.add(callId);
  }

  /** Calls waiting in sub-runs, named by the path of tools that leads to them. */
  pending(): PendingApproval[] {
    return [...this._byId.entries()].flatMap(([subRunWorkflowId, c]) =>
      c.pending
        .filter((p) => !this._forwarded.has(p.callId))
        .map((p) => ({ ...p, path: `${c.toolName} > ${p.path ?? p.toolName}`, runId: p.runId ?? subRunWorkflowId })),
    );
  }

  /** Whether any sub-run lists a call not passed a decision on to yet (pending().length > 0, without the copies). */
  hasPending(): boolean {
    for (const c of this._byId.values()) if (c.pending.some((p) => !this._forwarded.has(p.callId))) return true;
    return false;
  }

  /** The sub-run that holds a call the parent does not (and has not passed a decision on to yet). */
  owning(callId: string): [string, ChildRun] | undefined {
    return [...this._byId.entries()].find(
      ([, c]) => c.pending.some((p) => p.callId === callId) && !this._forwarded.has(callId),
    );
  }

  /** The sub-run started for this call waits for people only. */
  waiting(callId: string): boolean {
    return [...this._byId.values()].some((c) => c.callId === callId && c.waiting);
  }

  /** A sub-run reported: what it waits for now. Decisions passed on to it are settled once it stops listing the call. */
  applyReport(r: ChildReport): boolean {
    const child = this._byId.get(r.childWorkflowId);
    if (!child) return false;
    child.waiting = r.waiting;
    child.pending = r.pending;
    for (const id of [...this._forwarded]) if (!r.pending.some((p) => p.callId === id)) this._forwarded.delete(id);
    // A decision the sub-run refused: the call is pending here again (its report still lists it).
    for (const refusal of r.refused ?? []) this._forwarded.delete(refusal.callId);
    return true;
  }
}
