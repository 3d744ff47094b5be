// What the approval book holds: each waiting call as the run shows it (the contract's PendingApproval) plus what the
// book keeps to decide it, its always-rules and its audit log. Plain JSON, carried across continue-as-new. Readers get
// read-only views of it; only the book's own methods change it. A recorded state enters through `ownState`, the one
// place where calls recorded before every call carried its `kind` get it. Pure.
import type { OnTimeout } from '../../contract/approvalPolicy';
import type { AuditEntry, PendingApproval, PendingKind } from '../../contract/runViews';
import type { YesNo } from '../../contract/decisionWords';
import { definedFields } from '../definedFields';
import type { CallState } from './decisionRules';

/** Read-only all the way down: what the book hands out of its own state. */
export type DeepReadonly<T> =
  T extends ReadonlyArray<infer E>
    ? ReadonlyArray<DeepReadonly<E>>
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** The book's record of a waiting call: the pending call plus what deciding it takes (its state, texts and timers). */
export interface BookCall extends PendingApproval {
  state: CallState;
  /** For external calls: the text the model gets (the result, or the error). */
  externalOutput?: string;
  /** What the model sees when this call is rejected without a reviewer message (formatter already applied). */
  rejectionText: string;
  /** With expiresAt: the wait it was given ('24h'), what its end does, and the agent's own words for it (else expiryText). */
  timeout?: string;
  onTimeout?: OnTimeout;
  timeoutText?: string;
  /** Notifications while it waits (from its WaitTerms). */
  reminders?: { remindEvery?: string; remindBeforeExpiry?: string; escalateAfter?: string; escalateTo?: string };
  /** Notifications already sent, so a continued-as-new run does not repeat them. */
  remindersSent?: number;
  escalated?: boolean;
  /** The text the model gets for a rejection: the reviewer's message, else rejectionText. */
  rejectionOutput?: string;
  /** Approved with other arguments (JSON, already validated): these run instead. */
  editedArguments?: string;
  /** The tool's maxExtension, and what approvers have added so far (ms). */
  maxExtensionMs?: number;
  extendedMs?: number;
  /** The expiry the before-expiry reminder went out for (an extension calls for another). */
  expiryReminderFor?: string;
}

/** What a call enters the book with: its planned terms, before the book has decided anything about it. */
export type Booking = Omit<BookCall, 'state' | 'rejectionOutput'>;

export interface StickyRule {
  decision: YesNo;
  message?: string;
  approver?: string;
}

export interface BookState {
  calls: BookCall[];
  /** Keyed by alwaysRuleKey (contract/alwaysRuleKey.ts). */
  sticky: Record<string, StickyRule>;
  audit: AuditEntry[];
  /** The last audit sequence number handed out: entries are read in pages after a `seq` (ignored ones get trimmed). */
  auditSeq?: number;
  /** Token ids of signed decisions applied here, with their expiry (seconds): a token counts once. Expired ones are dropped. */
  usedJtis?: Record<string, number>;
  /** Who asked for the calls (auditLog.ts names them on each entry): set by a gateway's gated call since change callOutcomes. */
  requestedBy?: string;
}

/** The book's state as its readers get it: nothing in it can be written through. Audit entries are never changed once written. */
export type BookView = DeepReadonly<Omit<BookState, 'audit'>> & { readonly audit: ReadonlyArray<Readonly<AuditEntry>> };

/** The book's state as recorded (a continue-as-new carry): calls recorded before every call carried its kind lack it. */
export type RecordedBook = Omit<BookView, 'calls'> & {
  readonly calls: ReadonlyArray<DeepReadonly<Omit<BookCall, 'kind'> & { kind?: PendingKind }>>;
};

/** A recorded call as the book keeps it: its own copies of what it changes, and always a kind (absent: an approval). */
function ownCall({ kind, fields, approvers, quorum, ...c }: RecordedBook['calls'][number]): BookCall {
  return {
    ...c,
    kind: kind ?? 'approval',
    ...(fields ? { fields: [...fields] } : {}),
    ...(approvers ? { approvers: [...approvers] } : {}),
    ...(quorum ? { quorum: { needed: quorum.needed, approvedBy: [...quorum.approvedBy] } } : {}),
  };
}

/** The book's own state from a recorded one (or a new, empty one). */
export function ownState(recorded?: RecordedBook): BookState {
  if (!recorded) return { calls: [], sticky: {}, audit: [], auditSeq: 0 };
  return {
    ...recorded,
    calls: recorded.calls.map(ownCall),
    sticky: { ...recorded.sticky },
    audit: [...recorded.audit],
    ...(recorded.usedJtis ? { usedJtis: { ...recorded.usedJtis } } : {}),
  };
}

/** What a waiting call shows readers: the contract's fields only, as copies (the book's state stays its own). */
export function asPending({
  callId,
  kind,
  fields,
  toolName,
  arguments: args,
  agentName,
  requestedAt,
  expiresAt,
  approvers,
  mcpServer,
  quorum,
  signedDecisions,
  excludedApprover,
  uncertainBecause,
  preview,
  request,
  assistantSaid,
  fingerprint,
  stale,
  guardrail,
  askedBecause,
}: DeepReadonly<BookCall>): PendingApproval {
  const optional = {
    fields: fields && [...fields],
    expiresAt,
    approvers: approvers && [...approvers],
    mcpServer,
    signedDecisions,
    excludedApprover,
    uncertainBecause,
    preview: preview && { ...preview },
    request,
    assistantSaid,
    fingerprint,
    stale: stale && { ...stale },
    quorum: quorum && { needed: quorum.needed, approvedBy: [...quorum.approvedBy] },
    guardrail: guardrail && ({ ...guardrail } as PendingApproval['guardrail']),
    askedBecause,
  };
  return { callId, kind, toolName, arguments: args, agentName, requestedAt, ...definedFields(optional) };
}
