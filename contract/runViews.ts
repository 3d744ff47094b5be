// What a run shows and answers, as plain types: pending calls, decisions applied, the audit log, the compact
// view, the snapshot and the pages of its logs. Shared by the run state, the workflow, the client and the CLI;
// re-exported by the wire contract (contract/messages.ts). No Temporal imports.
import type { ConversationItem, Usage } from './items';
import type { PendingApproval, Quorum } from './pendingCall';

// The pending call is one zod schema (contract/pendingCall.ts); its types are re-exported here with the rest of the views.
export type { CallPreview, PendingApproval, PendingKind, Quorum } from './pendingCall';
import type { AuditDecision, DecisionOutcome, YesNo } from './decisionWords';

// The decision's words live in contract/decisionWords.ts; re-exported here, where readers have always found them.
export type { AuditDecision, DecisionOutcome, UncertainAnswer } from './decisionWords';

export interface AppliedDecision {
  callId: string;
  toolName: string;
  outcome: DecisionOutcome;
  approver?: string;
  /** A signed decision: its token checked out (the approver is the key's). */
  verified?: true;
  /** For approval_counted: approvals so far and needed. For extended: the new expiry. */
  quorum?: Quorum;
  expiresAt?: string;
}

export interface DecideResult {
  applied: AppliedDecision[];
  /** User messages now waiting for the next model turn. */
  inputsQueued?: number;
  /** Calls still waiting for a person after these decisions. */
  stillPending: string[];
}

// ── What the run shows ───────────────────────────────────────────────────────────────────────────────────────
export type RunStatus = 'Running' | 'AwaitingApproval' | 'Completed' | 'Failed';

/** Internal: what a sub-run (child workflow) tells its parent whenever it changes. */
export interface ChildReport {
  childWorkflowId: string;
  /** The sub-run waits only for people (or has nothing running). */
  waiting: boolean;
  pending: PendingApproval[];
  /** Decisions passed on by the parent that the sub-run refused (e.g. invalid edited arguments): pending there again. */
  refused?: Array<{
    callId: string;
    because: string;
    /** The sub-run that refused it (at any depth). */ runId?: string;
  }>;
}

export interface AuditEntry {
  /** Position in the run's audit log (1, 2, …): page with `auditLog({ after: seq })`. */
  seq?: number;
  callId: string;
  toolName?: string;
  arguments?: string;
  decision: AuditDecision;
  approver?: string;
  reason?: string;
  message?: string;
  requestedAt?: string;
  decidedAt: string;
  /** `rule`: a sticky always-rule; `onApproval`: the tool's onApproval code decided it; `grant`: a standing grant. */
  via: 'signal' | 'update' | 'rule' | 'timer' | 'onApproval' | 'grant' | 'run';
  /** For `granted`: the standing grant that approved the call. */
  grantId?: string;
  /** For `audited`: an audit-only call (`needsApproval: 'audit'`): it ran at once and waits for a review (contract/reviewMessages.ts). */
  review?: true;
  /** For `ignored`: why the decision changed nothing. */
  ignoredBecause?: string;
  /** For `timed_out`: what the timeout did (the onTimeout policy). */
  onTimeout?: 'reject' | 'approve' | 'fail';
  /** When a reviewer approved with other arguments: what ran instead of `arguments`. */
  editedArguments?: string;
  /** The agent whose call it is (absent: the run's agent). */
  agentName?: string;
  /** A signed decision: the token's signature checked against the worker's approver keys; `approver` is its `sub`. */
  verified?: true;
  /** For a signed decision: the key that signed it (`kid`), and the token's unique id (`jti`). */
  keyId?: string;
  jti?: string;
  /** For `extended`: by how much, and the new expiry (ISO-8601). */
  extendedBy?: string;
  expiresAt?: string;
  /** For a call that needs a quorum: approvals needed, and who has approved so far (this entry included). */
  quorum?: Quorum;
  /** The call went to a person because code could not decide it: the pending call's askedBecause, on each of its entries. */
  askedBecause?: string;
  /** For `stale`: the fingerprint the decision was given for, and the one found just before the call would have run. */
  stale?: { was: string; now: string };
  /** For `outcome`: what the call's caller reported it did with it (contract/gatewayMessages.ts). */
  outcome?: CallOutcome;
  /** A gateway's gated call: who asked (the engineer behind a hook, the approvals API's caller), on each of its entries. */
  requestedBy?: string;
}

/** What the caller of an ask-only call did with it: an exit code, an error, a line of text (each bounded). */
export interface CallOutcome {
  exitCode?: number;
  error?: string;
  text?: string;
}

export interface Handoff {
  from: string;
  to: string;
  callId: string;
  at: string;
  /** A handoff with an input filter: what the receiving agent's model was sent from then on (core/run/handoffView.ts). */
  inputFilter?: HandoffMark;
}

/** A declarative handoff input filter: the SDK's handoffFilters.removeAllTools, or the last n items only. */
export type HandoffInputFilter = 'remove_all_tools' | { keepLast: number };
/** Where a filtered handoff happened (the conversation's length then), which filter, and a function filter's items. */
export interface HandoffMark {
  at: number;
  filter: HandoffInputFilter | 'function';
  items?: ConversationItem[];
}

/**
 * What a run shows, compactly: where it stands, what waits for people, the final output or error, and cursors for
 * reading the conversation and the audit in pages. The answer of `nextPause`, the workflow result, and the core of
 * `runState`. Its size does not grow with the run's length (pending calls aside).
 */
export interface RunView {
  agent: { name: string; version: string };
  /** The agent the run started with, when a handoff has moved the conversation since. */
  startedWith?: string;
  status: RunStatus;
  turn: number;
  maxTurns: number;
  pending: PendingApproval[];
  usage: Usage;
  /** When the run began (ISO-8601), across continue-as-new. */
  startedAt: string;
  /** With runTimeout: when the run fails with RunTimedOut. */
  deadline?: string;
  /** How many times this run has continued as new (same workflow id). */
  continuedAsNew: number;
  /** Something the run is waiting out, e.g. no worker has its agent version yet. */
  problem?: string;
  /** Where the logs end now: `conversation({ after: cursor.items })` and `auditLog({ after: cursor.audit })` read what comes next. */
  cursor: { items: number; audit: number };
  finalOutput?: string;
  /** The agent has an outputType: `finalOutput` is JSON of that type (read it with result.finalOutputAs(schema)). */
  structuredOutput?: true;
  /** Why the run failed, and the failure type (e.g. MaxTurnsExceeded, ModelRequestRejected). */
  error?: string;
  errorType?: string;
}

/**
 * The `runState` query: the view plus the newest conversation items and audit entries, and the handoffs and
 * queued user messages. A long run's items and audit are cut to their newest entries (`itemsFrom` / `auditFrom`
 * say where the window starts); read them whole with the `conversation` and `auditLog` queries.
 */
export interface RunSnapshot extends RunView {
  items: ConversationItem[];
  /** Index of `items[0]` in the whole conversation (0: nothing left out). */
  itemsFrom: number;
  audit: AuditEntry[];
  /** Entries before this many were left out of `audit` (0: nothing left out). */
  auditFrom: number;
  /** User messages added with addInput, waiting for the next model turn. */
  queuedInputs: string[];
  /** Handoffs so far: the conversation moved from one agent to another. */
  handoffs: Handoff[];
  /** Sticky always-rules people set in this run, keyed `agent/tool` (`agent/mcp:server/tool` for MCP tools). */
  alwaysRules?: Record<string, { decision: YesNo; message?: string; approver?: string }>;
}

/** The workflow's result: the snapshot of a completed run (its windows smaller: at most 100 newest items and audit entries, about 256 KB each). */
export type RunResult = RunSnapshot & { status: 'Completed'; finalOutput: string };

/** A page of the conversation: items `after` … `next - 1` of `total`. A page also stops at about 1 MB of JSON. */
export interface ConversationPage {
  items: ConversationItem[];
  next: number;
  total: number;
}

/** A page of the audit log: entries with `seq` after the request's `after`, up to `next` (the last `seq` returned). */
export interface AuditPage {
  entries: AuditEntry[];
  next: number;
  total: number;
}
