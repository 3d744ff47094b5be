// What a run hands the approvals ledger, from what it holds: its audit entries without their arguments (a digest
// instead: arguments may be large, and they stay in the run's history), and the calls that wait for a person now.
// Pure: the workflow's writer (workflows/ledgerWriter.ts) and the backfill both build their writes with it.
import type { AuditEntry } from '../../contract/runViews';
import type { PendingApproval } from '../../contract/pendingCall';
import type { LedgerEntry, LedgerPending } from '../../contract/ledgerRecords';
import { argsDigest } from '../signing/decisionToken';

/**
 * Refusals (`ignored`) change nothing, and the audit drops the oldest of them past a cap: the ledger keeps what
 * decided or recorded something, so a flood of refused decisions never floods it.
 */
export const kept = (e: Readonly<AuditEntry>): boolean => e.decision !== 'ignored';

/** An audit entry as the ledger keeps it: its seq, and the arguments' SHA-256 (base64url) in their place. */
export function ledgerEntryOf(e: Readonly<AuditEntry>): LedgerEntry {
  const { arguments: args, editedArguments: edited, seq, ...rest } = e;
  if (seq === undefined) throw new Error(`audit entry of call ${e.callId} has no seq`);
  return {
    ...structuredCopy(rest),
    seq,
    ...(args !== undefined ? { argumentsDigest: argsDigest(args) } : {}),
    ...(edited !== undefined ? { editedArgumentsDigest: argsDigest(edited) } : {}),
  };
}

/** The ledger's entries among `entries` (oldest first), refusals left out. */
export const ledgerEntriesOf = (entries: ReadonlyArray<Readonly<AuditEntry>>): LedgerEntry[] =>
  entries.filter(kept).map(ledgerEntryOf);

/** A waiting call as the ledger shows it until its decision is written. */
export function ledgerPendingOf(p: PendingApproval): LedgerPending {
  return {
    callId: p.callId,
    toolName: p.toolName,
    ...(p.agentName ? { agentName: p.agentName } : {}),
    requestedAt: p.requestedAt,
    ...(p.path ? { path: p.path } : {}),
  };
}

/** What decides whether the pending calls are sent again: which calls wait, in order. */
export const pendingKey = (pending: ReadonlyArray<{ callId: string }>): string =>
  pending.map((p) => p.callId).join('\n');

/** A plain copy of an entry's nested values (quorum, stale), so a write never shares objects with the run's book. */
function structuredCopy<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
