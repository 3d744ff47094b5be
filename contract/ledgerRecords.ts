// The approvals ledger's shapes, once: what a run hands the ledger activity (recorded in its history), what the
// ledger keeps (one chained row per audit entry, one derived row per call) and what its readers ask. The stores
// (storage/ledger/), the workflow's writer, the activity and the readers all use these. No Temporal imports.
import type { AuditEntry, PendingApproval } from './runViews';
import type { Review } from './reviewMessages';

/**
 * An audit entry as the ledger keeps it: without the call's arguments (which may be large and stay in the run's
 * history), with their SHA-256 instead (base64url, the digest a signed token's `args` claim carries).
 */
export interface LedgerEntry extends Omit<AuditEntry, 'arguments' | 'editedArguments' | 'seq'> {
  /** Position in the run's audit (its chain, for reviews the reviews workflow's count). */
  seq: number;
  argumentsDigest?: string;
  editedArgumentsDigest?: string;
}

/** A review of an audit-only call, as the ledger keeps it (the reviews workflow's entries). */
export interface LedgerReview extends Review {
  seq: number;
}

/** A call that waits for a person now, as the ledger shows it until its decision is written. */
export type LedgerPending = Pick<PendingApproval, 'callId' | 'toolName' | 'requestedAt' | 'path'> &
  Partial<Pick<PendingApproval, 'agentName'>>;

/** Which chain a write belongs to. */
export interface LedgerChainKey {
  workflowId: string;
  /**
   * The run's first execution id (workflowInfo().firstExecutionRunId): the same across continue-as-new, another
   * for a reused workflow id, whose audit starts again at seq 1 in a chain of its own.
   */
  chainId: string;
}

/**
 * One ledger write: the entries a run (or the reviews workflow) added since its last confirmed write, oldest first.
 * Idempotent: an entry already kept under (workflowId, chainId, seq) is skipped, so a retried or repeated write
 * changes nothing.
 */
export interface LedgerWrite extends LedgerChainKey {
  taskQueue: string;
  /** The run's agent (an entry's own agentName wins). */
  agent: string;
  entries?: LedgerEntry[];
  reviews?: LedgerReview[];
  /** The calls waiting now, when that changed since the last write: replaces what the ledger shows as pending. */
  pending?: LedgerPending[];
  /** The run has ended: calls still shown pending were cut off (cancelled). */
  closed?: true;
}

/** What a write did. */
export interface LedgerWriteResult {
  written: number;
  skipped: number;
  /**
   * The id of the ledger written to (recorded in the run's history as the activity's result, so readers of another
   * ledger can say where the run's records went). Absent in results recorded before ledgers had ids.
   */
  ledgerId?: string;
  /**
   * The write itself, when a run's last write went in a local activity (ledgerRides): history keeps a local
   * activity's result but not its input, and `ledger verify` compares the ledger with what the run handed it.
   */
  handed?: LedgerWrite;
}
