// What every approvals-ledger store does (SQLite by default, PostgreSQL for clusters): keep each audit entry once,
// chained; keep one derived row per call for the readers; answer pages, the compliance report and verification;
// prune. The shapes are contract/ledgerRecords.ts and core/approvals/approvalHistory.ts; the stores are
// storage/ledger/sqliteLedger.ts and pgLedger.ts, opened by openLedger (ledgerUrl.ts).
import type { LedgerWrite, LedgerWriteResult } from '../../contract/ledgerRecords';
import type { ApprovalFilter, ApprovalRecord } from '../../core/approvals/approvalHistory';
import type { LedgerLeaf } from './ledgerLeaves';

/** Which calls a page or a report covers. Times are ISO-8601; `until` is exclusive. */
export interface LedgerQuery extends ApprovalFilter {
  untilIso?: string;
  /** Only runs on this task queue. */
  taskQueue?: string;
  /** Only this run (its workflow id; every chain of it). */
  workflowId?: string;
  /** Only calls that came to something (no pending ones). */
  decidedOnly?: boolean;
}

export interface LedgerPageQuery extends LedgerQuery {
  /** At most this many records (default 1,000). */
  limit?: number;
  /** The `next` cursor of the page before. */
  after?: string;
  /** Newest first (a history's latest rows), in the same keyset order reversed. */
  newestFirst?: boolean;
}

/** Oldest first (by decision, else request); `next` is set when more records match. */
export interface LedgerPage {
  records: ApprovalRecord[];
  next?: string;
}

/** Counts and time to decision over a set of calls. */
export interface ReportGroup {
  total: number;
  byOutcome: Record<string, number>;
  /** approved, auto_approved, granted and timed_out (it ran) over every decided call (pending ones left out). */
  approvalRate: number | null;
  /** From request to decision, milliseconds (calls with both times). */
  timeToDecisionMs: { p50: number | null; p95: number | null };
}

/** The compliance report: totals, and the same by tool and by approver (every person counted on a call). */
export interface ComplianceReport extends ReportGroup {
  sinceIso?: string;
  untilIso?: string;
  byTool: Record<string, ReportGroup>;
  byApprover: Record<string, ReportGroup>;
}

/** One record the chains do not vouch for. */
export interface LedgerProblem {
  workflowId: string;
  chainId: string;
  /** The record's seq (0: none, e.g. a call row whose chain has no record of it). */
  seq: number;
  /** Set when the problem is a call's row in the report tables (ledger_calls, ledger_call_approvers). */
  callId?: string;
  problem: 'changed' | 'removed' | 'differs from history';
  detail: string;
}

export interface VerifyResult {
  chains: number;
  records: number;
  problems: LedgerProblem[];
}

export interface LedgerStore {
  /** `sqlite` or `postgres`, and where (a path; a URL without its password). */
  readonly describe: string;
  /**
   * The ledger's id, kept in the ledger itself (a copy of the database keeps it); every record and write result
   * carries it. Undefined only while a store that could not be reached yet is not open (worker/workerLedger.ts).
   */
  readonly id?: string;
  /** Writes a run's new entries and pending calls in one transaction (see LedgerWrite); retried writes skip. */
  write(w: LedgerWrite): Promise<LedgerWriteResult>;
  /**
   * Several writes (a backfill's runs) in one transaction, each kept as `write` would keep it, in order; all or none.
   * One commit for many runs: a million entries load several times faster than one write each.
   */
  writeMany(ws: LedgerWrite[]): Promise<LedgerWriteResult[]>;
  /** The calls matching, a page at a time. */
  approvals(q: LedgerPageQuery): Promise<LedgerPage>;
  report(q: LedgerQuery): Promise<ComplianceReport>;
  /** Recomputes every chain with a record in range (from its first record), naming what does not match. */
  verify(q: { sinceIso?: string; untilIso?: string }): Promise<VerifyResult>;
  /**
   * Reads one chain's kept entries (for comparing with a retained run's history), oldest first.
   */
  chain(key: { workflowId: string; chainId: string }): Promise<Array<{ seq: number; hash: string; entry: unknown }>>;
  /** Which of these runs (workflow ids) have records in this ledger. */
  heldRuns(workflowIds: string[]): Promise<Set<string>>;
  /**
   * Gives the records written since the last call their places in the ledger-wide tree (ledgerLeaves.ts): the tree's
   * size after, how many records the ledger keeps, and the size its last checkpoint was taken at.
   */
  placeLeaves(): Promise<{ size: number; records: number; checkpointed: number }>;
  /** Remembers that a witness keeps a checkpoint of this size (the next one lists the leaves after it). */
  markCheckpointed(size: number): Promise<void>;
  /** Up to `limit` leaves of the tree after place `after`, in order. */
  leaves(after: number, limit: number): Promise<LedgerLeaf[]>;
  /** How many records a chain keeps, and its highest seq (to say what a checkpoint's missing records were). */
  chainState(key: { workflowId: string; chainId: string }): Promise<{ records: number; lastSeq: number | null }>;
  /** Deletes every record decided before `beforeIso` (whole calls), and returns how many entries went. */
  prune(beforeIso: string): Promise<number>;
  /** Throws when the store cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * How many runs a backfill (and the bench's load) writes per transaction: a commit costs about as much as a run's
 * write, and a few hundred kilobytes of data a transaction keep PostgreSQL's locks and SQLite's WAL frames short.
 */
export const RUNS_PER_TRANSACTION = 100;

/** The one line that says which ledger a process uses: `approvals ledger: sqlite /srv/app/.temporal/ledger.db (id …)`. */
export const ledgerInUse = (l: Pick<LedgerStore, 'describe' | 'id'>): string =>
  `approvals ledger: ${l.describe} (id ${l.id ?? 'not known until its database is reached'})`;
