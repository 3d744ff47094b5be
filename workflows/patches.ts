import { patched } from '@temporalio/workflow';

// Every change to workflow behaviour since 1.0, by the id `patched()` knows it by. Runs recorded before a change
// replay the old way (test/integration/replay.test.ts proves it on test/histories); an id is never reused. Once no
// open run predates a change, its patched() becomes deprecatePatch(), and later the old branch goes.
export const PATCHES = {
  /** Tools with `idempotent: false`: one attempt; one that may have run makes the call `uncertain`. */
  uncertainCalls: 'countersign-uncertain-calls',
  /** Tools with a `fingerprint`: an approved call whose target changed does not run; it waits for a decision again. */
  staleApprovals: 'countersign-stale-approvals',
  /** Approver names compared canonically (NFC, trimmed, any case) and refused when empty, hidden or over-long (approverNames.ts). */
  canonicalApprovers: 'countersign-canonical-approvers',
  /** A decision for a sub-run's call goes on as the Decision it came as (signal countersignParentDecision), not rebuilt as an approve/reject/… signal. */
  relayedDecisions: 'countersign-relayed-decisions',
  /** Search attributes, details, the parent's report, approval_decided and metrics brought up to date once per condition check (Publisher.once, publisher.ts), not at every change. */
  publishOnce: 'countersign-publish-once',
  /** A `decide` update sent with waitForPause answers at the run's next pause, with the RunView (asked only when the field is sent). */
  decideWaits: 'countersign-decide-waits',
  /** A toolChoice forced by the run's own settings goes back to 'auto' once a tool ran, unless the agent opts out (resetToolChoice: false). */
  resetRunToolChoice: 'countersign-reset-run-tool-choice',
  /** Audit entries, reviews and pending calls written to the approvals ledger by the recordLedger activity (ledgerWriter.ts). */
  ledger: 'countersign-ledger',
  /** A decision signalled before its call is booked applies at a condition check, published before and after (decisionDesk.ts hold). */
  heldDecisions: 'countersign-held-decisions',
  /** An approved ask-only gated call (a hook's, the approvals API's) answers while its run stays open for the caller's outcome; its entries name the requester. */
  callOutcomes: 'countersign-call-outcomes',
  /** Ledger writes ride the run's own activities (runTool, modelTurn) and its end's local activity, not recordLedger alone (ledgerWriter.ts). */
  ledgerRides: 'countersign-ledger-rides',
  /** Fewer promises per workflow task: activities awaited without an async frame of their own, and no wait for what is already so (nothing in flight at the run's end, no handoff after a turn). */
  leanPromises: 'countersign-lean-promises',
} as const;

/**
 * Changes a run takes without a marker when its agent snapshot was written at this revision or later
 * (SNAPSHOT_REVISION, agentSnapshot.ts): a marker and its TemporalChangeVersion upsert are two events and a
 * visibility write in every new run. The snapshot is recorded at the run's start, so replay reads the same answer.
 */
const SINCE_REVISION: Partial<Record<keyof typeof PATCHES, number>> = {
  publishOnce: 1,
  decideWaits: 1,
  resetRunToolChoice: 2,
  ledger: 3,
  heldDecisions: 4,
  ledgerRides: 5,
  leanPromises: 6,
};

/** Whether the run takes change `id`: its snapshot's revision says so, or else patched() does (runs described before). */
export function hasChange(agent: { revision?: number } | undefined, id: keyof typeof PATCHES): boolean {
  const since = SINCE_REVISION[id];
  return (since !== undefined && (agent?.revision ?? 0) >= since) || patched(PATCHES[id]);
}

/** The highest revision a change needs: describeAgent must write at least this (test/unit/patches.test.ts). */
export const NEEDED_REVISION = Math.max(0, ...Object.values(SINCE_REVISION));
