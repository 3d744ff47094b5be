// The approval book's audit log: numbered entries (read in pages after a `seq`), with refusals capped so hostile
// signal floods cannot grow the run's state. Pure functions over the book's plain state.
import type { AuditEntry } from '../../contract/runViews';

/** Ignored entries kept in the audit log; older ones are dropped so hostile signal floods cannot grow history. */
export const MAX_IGNORED_AUDIT_ENTRIES = 100;

export interface AuditState {
  audit: AuditEntry[];
  auditSeq?: number;
  /** Who asked for the book's calls, named on each entry (a gateway's gated call: the engineer behind it). */
  requestedBy?: string;
}

/** Entries after sequence number `after`, oldest first. */
export function entriesAfter(audit: ReadonlyArray<Readonly<AuditEntry>>, after: number): AuditEntry[] {
  const from = audit.findIndex((a) => (a.seq ?? 0) > after);
  return from < 0 ? [] : audit.slice(from);
}

export function appendEntry(s: AuditState, entry: AuditEntry): void {
  entry.seq = s.auditSeq = (s.auditSeq ?? 0) + 1;
  if (s.requestedBy !== undefined) entry.requestedBy = s.requestedBy;
  s.audit.push(entry);
}

/** A decision that changed nothing, with why (texts cut to size); the oldest refusal goes past the cap. */
export function appendIgnored(
  s: AuditState,
  who: { callId: string; toolName?: string; approver?: string },
  because: string,
  now: string,
  via: 'signal' | 'update',
): AuditEntry {
  const entry: AuditEntry = {
    callId: who.callId,
    ...(who.toolName ? { toolName: who.toolName } : {}),
    decision: 'ignored',
    ...(who.approver !== undefined ? { approver: who.approver.slice(0, 200) } : {}),
    decidedAt: now,
    via,
    ignoredBecause: because.slice(0, 500),
  };
  appendEntry(s, entry);
  const ignored = s.audit.filter((a) => a.decision === 'ignored');
  if (ignored.length > MAX_IGNORED_AUDIT_ENTRIES) s.audit.splice(s.audit.indexOf(ignored[0]!), 1);
  return entry;
}
