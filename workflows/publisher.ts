// What the run tells the world when it changed: its search attributes, the Web UI's "current details", for a
// sub-run a report to its parent run of what it waits for, the approval_decided notifications and the approval
// metrics. Each is sent only when it changed. Code that changes the run says so (publish()); the run brings all of
// it up to date in one place, at the condition checks of each activation, the last of which ends the activation.
// Runs from before patch publishOnce published at every publish() instead, and replay so.
//
// Why the condition checks: the SDK checks the run's conditions after each job of an activation and then, each time
// the run's code has run as far as it can, until none unblocks; the last check sees the activation's final state,
// and what it issues (upserts, the parent's report, notifications) joins that activation's commands. Not an
// interceptor: the SDK's concludeActivation hook runs after the commands are collected, so commands issued there
// would land in the next activation. No timer, no promise resolved, no extra entry into the workflow sandbox: one
// boolean read per check.
import {
  condition,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { hasChange } from './patches';
import type { AgentRunState } from '../core/run/agentRunState';
import { pendingDetails } from '../core/approvals/pendingDetails';
import { rootCause } from '../core/run/failures';
import { childStateSignal } from '../contract/messages';
import { type ChildReport, type PendingApproval } from '../contract/runViews';
import type { Notifier } from './notifier';
import type { LedgerWriter } from './ledgerWriter';
import { RunMetrics } from './runMetrics';
import {
  HitlAgent,
  HitlPendingSince,
  HitlPendingTools,
  HitlStatus,
  searchAttributeUpdates,
} from '../contract/searchAttributes';

/** What decides whether the search attributes are sent again: status, agent, problem and the waiting calls. */
const publicationKey = (
  status: string,
  agent: string,
  problem: string | undefined,
  pending: ReadonlyArray<{ callId: string }>,
) => `${status}|${agent}|${problem ?? ''}|${pending.map((p) => p.callId).join(',')}`;

/**
 * The key of the search attributes a run started with, where they are what its first publish would send: the
 * client library sets `HitlStatus=Running` and `HitlAgent` at start, which spares every run one upsert event. Only
 * fresh starts (a continued run's inherited attributes were always upserted again, and replay so).
 */
function publishedAtStart(agent: string): string {
  const info = workflowInfo();
  if (info.continuedFromExecutionRunId) return '';
  const sa = info.typedSearchAttributes;
  const fresh =
    sa.get(HitlStatus) === 'Running' &&
    sa.get(HitlAgent) === agent &&
    !sa.get(HitlPendingTools)?.length &&
    !sa.get(HitlPendingSince);
  return fresh ? publicationKey('Running', agent, undefined, []) : '';
}

export class Publisher {
  /** The search attributes last sent, as a key; a fresh start by the client library already carries the first ones. */
  private published: string;
  private details = '';
  /** The audit's last seq already reported as approval_decided (a continued run starts where its predecessor stopped). */
  private notifiedSeq: number;
  private reported = '';
  /** Decisions passed on by the parent that this sub-run refused, not yet reported. */
  private readonly refused: NonNullable<ChildReport['refused']> = [];
  private refusals = 0;
  private readonly metrics: RunMetrics;
  /** Changed since the world was last told (publish-once runs only). */
  private changed = false;
  /** Whether the run publishes once per check (patch publishOnce) rather than at every publish(); see `once`. */
  private onceMode: boolean | undefined;

  constructor(
    private readonly state: AgentRunState,
    private readonly notifier: Notifier,
    /** The approvals ledger's writer (runs whose worker keeps one), fed at the same checks as the notifications. */
    private readonly ledger?: LedgerWriter,
  ) {
    this.notifiedSeq = state.book.state.auditSeq ?? 0;
    this.metrics = new RunMetrics(state);
    this.published = publishedAtStart(state.agentRef().name);
  }

  /**
   * Asked at the run's first publication, which comes after its agent snapshot: the patch's marker follows the
   * snapshot's in history, which stays the run's first marker. From then on, a publish-once run flushes at each
   * condition check that finds it changed: the condition never unblocks, and a cancelled run's root scope drops it
   * (the run then settles what it publishes itself, agentRun.ts). Three promises for the run's life.
   */
  private get once(): boolean {
    if (this.onceMode === undefined) {
      this.onceMode = hasChange(this.state.agent, 'publishOnce');
      if (this.onceMode)
        condition(() => {
          if (this.changed) this.flush();
          return false;
        }).catch(() => undefined);
    }
    return this.onceMode;
  }

  /** The run changed. Its event log follows at once (it records each step); the rest at the activation's checks. */
  publish(): void {
    this.state.events.observe(this.state, new Date(Date.now()).toISOString());
    if (this.once) this.changed = true;
    else this.flush();
  }

  /** What changed since the last check, now: before the run ends or continues as new (after its last check), and around each held decision (decisionDesk.ts). */
  settle(): void {
    if (this.changed) this.flush();
  }

  private flush(): void {
    this.changed = false;
    this.reportDecisions();
    this.ledger?.feed(); // the audit's new entries and the pending calls, when they changed
    this.metrics.observe();
    const s = this.state;
    const pending = s.allPending();
    this.reportToParent(pending);
    const key = publicationKey(s.status(), s.agentRef().name, s.problem, pending);
    if (key !== this.published) {
      this.published = key;
      upsertSearchAttributes(searchAttributeUpdates({ status: s.status(), agent: s.agentRef().name, pending }));
    }
    const details = pending.length ? pendingDetails(pending) : `${s.status()}: ${s.agentRef().name}, turn ${s.turn}`;
    const shown = s.problem ? `${details}\nProblem: ${s.problem}` : details;
    if (shown === this.details) return;
    this.details = shown;
    setCurrentDetails(shown); // workflow metadata, not a history event
  }

  /**
   * Every decision reaches the worker's webhook (approval_decided), so a user's own store can keep the record past
   * namespace retention (only where the run's agent snapshot says the worker has a webhook).
   */
  private reportDecisions(): void {
    const seq = this.state.book.state.auditSeq ?? 0;
    if (seq === this.notifiedSeq) return;
    const after = this.notifiedSeq;
    this.notifiedSeq = seq;
    if (this.state.agent?.webhook) this.notifier.decided(this.state.book.auditAfter(after), this.state.agentRef().name);
  }

  /**
   * A sub-run refused a decision for one of its calls (e.g. invalid edited arguments passed on by the parent): the
   * parent learns it with the next report, so the call is pending on the parent again instead of stuck as forwarded.
   */
  refuse(callId: string, because: string): void {
    if (this.state.book.call(callId)?.state !== 'pending') return; // only refusals of calls that still wait matter upstream
    this.relayRefusal({ callId, because, runId: workflowInfo().workflowId });
  }

  /** A refusal from further down (a sub-run of this sub-run) goes on up to the run the decision came from. */
  relayRefusal(refusal: NonNullable<ChildReport['refused']>[number]): void {
    if (!workflowInfo().parent) return;
    this.refused.push(refusal);
    this.refusals += 1;
    this.publish();
  }

  /** A sub-run tells its parent what it waits for (and whether it waits only for people), on every change. */
  private reportToParent(pending: PendingApproval[]): void {
    const parent = workflowInfo().parent;
    if (!parent) return;
    const s = this.state;
    const report: ChildReport = {
      childWorkflowId: workflowInfo().workflowId,
      waiting: s.quiescent(),
      pending: s.finished ? [] : pending,
    };
    if (this.refused.length) report.refused = this.refused.splice(0);
    const key = `${report.waiting}|${report.pending.map((p) => p.callId).join(',')}${this.refusals ? `|${this.refusals}` : ''}`;
    if (key === this.reported) return;
    this.reported = key;
    getExternalWorkflowHandle(parent.workflowId)
      .signal(childStateSignal, report)
      .catch((err) => log.warn('could not report to the parent run', { error: rootCause(err).message }));
  }
}
