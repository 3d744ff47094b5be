// The wire contract of an agent run: workflow type, signals, the `decide` update, queries and their payloads.
// Imported by the workflow, the client library and the CLI alike; admin scripts and the plain `temporal` CLI
// send exactly these JSON shapes. zod schemas validate every payload that crosses the wire.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { approvalPolicySchema, durationSchema } from '../domain/approvalPolicy';
import { shareAcrossRuns } from '../domain/sharedModules';
import type { ConversationItem, Usage } from '../domain/items';

export const WORKFLOW_TYPE = 'agentRun';
export const DEFAULT_TASK_QUEUE = 'countersign';

// ── Starting a run ───────────────────────────────────────────────────────────────────────────────────────────
const jsonRecord = shareAcrossRuns('messages.jsonRecord', () => z.record(z.string(), z.unknown()));

export const runInputSchema = shareAcrossRuns('messages.runInputSchema', () => z.object({
  /** Registered agent name, e.g. 'email-assistant'. */
  agent: z.string().min(1, 'name a registered agent, e.g. "email-assistant"'),
  /** Pin an agent version; default: the newest the worker has. */
  agentVersion: z.string().min(1).optional(),
  /** The user's message. */
  input: z.string().min(1, 'the user message must not be empty'),
  /** Non-secret context handed to tools and approval predicates (it is stored in history). */
  context: jsonRecord.optional(),
  /** Model turns before the run fails with MaxTurnsExceeded. Default 10. */
  maxTurns: z.number().int().min(1).max(1000).optional(),
  /** Approval policy for this run: wins over the agent's and the tools' (approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo). */
  ...approvalPolicySchema.omit({ approvers: true }).shape,
  /** How long one model call may take before Temporal retries it (default 3 minutes). */
  modelTimeout: durationSchema.optional(),
  /** How long one tool execution may take before Temporal retries it (default 5 minutes). */
  toolTimeout: durationSchema.optional(),
  /** Whole-run deadline: past it the run fails with RunTimedOut, whatever it waits for. */
  runTimeout: durationSchema.optional(),
  /** Continue-as-new past this many history events (also whenever the server suggests it). Default 10000. */
  continueAsNewAfterEvents: z.number().int().min(10).optional(),
  /** Always-rules by tool name, handed down by a parent run whose asTool opted in (shareAlwaysRules). */
  alwaysRules: z.record(z.string(), z.object({ decision: z.enum(['approve', 'reject']), message: z.string().optional(), approver: z.string().optional() })).optional(),
  /** The session this run belongs to (runner.run(…, { session })): its earlier runs' conversation comes in `history`. */
  session: z.string().min(1).max(200).optional(),
  /** Conversation items the run starts with, before the user's message (a session's earlier runs, trimmed). */
  history: z.array(z.looseObject({ type: z.string() })).optional(),
}));
export type RunInput = z.infer<typeof runInputSchema>;

// ── Decisions ────────────────────────────────────────────────────────────────────────────────────────────────
const callId = shareAcrossRuns('messages.callId', () => z.string().min(1, 'must be a non-empty string').max(256, 'is longer than any call id (256 characters)'));
const approver = shareAcrossRuns('messages.approver', () => z.string().min(1, 'must be a non-empty name').max(200, 'at most 200 characters').optional());
const text = shareAcrossRuns('messages.text', () => z.string().max(10_000, 'at most 10000 characters').optional());

/** Arguments a reviewer substitutes when approving: an object, or its JSON text. Checked against the tool's schema. */
const editedArguments = shareAcrossRuns('messages.editedArguments', () => z.union([jsonRecord, z.string().max(100_000, 'at most 100000 characters')]).optional());

/** Signal `approve`: `{"callId": "...", "alwaysApprove": false, "approver": "alice", "reason": "...", "editedArguments": {...}}` */
export const approvePayloadSchema = shareAcrossRuns('messages.approvePayloadSchema', () => z.strictObject({ callId, alwaysApprove: z.boolean().optional(), approver, reason: text, editedArguments }));
/** Signal `reject`: `{"callId": "...", "message": "shown to the model", "alwaysReject": false, "approver": "bob"}` */
export const rejectPayloadSchema = shareAcrossRuns('messages.rejectPayloadSchema', () => z.strictObject({ callId, message: text, alwaysReject: z.boolean().optional(), approver, reason: text }));
export type ApprovePayload = z.infer<typeof approvePayloadSchema>;
export type RejectPayload = z.infer<typeof rejectPayloadSchema>;

/** A person's values for an `input` call: `{"time": "10:00"}`. */
const inputValues = shareAcrossRuns('messages.inputValues', () => z.record(z.string(), z.unknown()));
/** An outside system's answer for an `external` call: the result (text or JSON), or an error. */
const externalResult = shareAcrossRuns('messages.externalResult', () => z.union([z.string().max(1_000_000, 'at most 1000000 characters'), jsonRecord, z.array(z.unknown())]));

/** Signal `provideInput`: `{"callId": "...", "values": {"time": "10:00"}, "approver": "ann"}` */
export const provideInputPayloadSchema = shareAcrossRuns('messages.provideInputPayloadSchema', () => z.strictObject({ callId, values: inputValues, approver, reason: text }));
/** Signal `provideResult`: `{"callId": "...", "result": "..."}` or `{"callId": "...", "error": "..."}` */
export const provideResultPayloadSchema = shareAcrossRuns('messages.provideResultPayloadSchema', () => z
  .strictObject({ callId, result: externalResult.optional(), error: text, approver })
  .refine((p) => (p.result === undefined) !== (p.error === undefined), { message: 'send exactly one of result or error', path: ['result'] }));
export type ProvideInputPayload = z.infer<typeof provideInputPayloadSchema>;
export type ProvideResultPayload = z.infer<typeof provideResultPayloadSchema>;

/**
 * One entry of the `decide` update. `approve` / `reject` for approvals (and `reject` skips any kind of call);
 * `input` with `values` for input calls; `result` with `result` or `error` for external calls.
 * `always` makes an approve/reject sticky for every later call of that tool in this run.
 */
export const decisionSchema = shareAcrossRuns('messages.decisionSchema', () => z.strictObject({
  callId,
  decision: z.enum(['approve', 'reject', 'input', 'result'], { error: 'must be "approve", "reject", "input" or "result"' }),
  values: inputValues.optional(),
  result: externalResult.optional(),
  error: text,
  always: z.boolean().optional(),
  /** Shown to the model when rejecting. */
  message: text,
  /** Why, for the audit log. */
  reason: text,
  approver,
  /** Approve with these arguments instead of the model's (validated against the tool's schema). */
  editedArguments,
})
  .refine((d) => d.editedArguments === undefined || d.decision === 'approve', { message: 'only an approval can carry editedArguments', path: ['editedArguments'] })
  .refine((d) => (d.values !== undefined) === (d.decision === 'input'), { message: 'an "input" decision carries values, and only it does', path: ['values'] })
  .refine((d) => d.decision !== 'result' || (d.result === undefined) !== (d.error === undefined), { message: 'a "result" decision carries exactly one of result or error', path: ['result'] })
  .refine((d) => d.decision === 'result' || (d.result === undefined && d.error === undefined), { message: 'only a "result" decision carries result or error', path: ['result'] }));
export type Decision = z.infer<typeof decisionSchema>;

/** A user message for the model's next turn (the seed SDK's `state.addInput()`). */
const userMessage = shareAcrossRuns('messages.userMessage', () => z.string().min(1, 'must not be empty').max(100_000, 'at most 100000 characters'));
export const addInputPayloadSchema = shareAcrossRuns('messages.addInputPayloadSchema', () => z.strictObject({ message: userMessage }));
export type AddInputPayload = z.infer<typeof addInputPayloadSchema>;

export const decidePayloadSchema = shareAcrossRuns('messages.decidePayloadSchema', () => z
  .strictObject({
    decisions: z.array(decisionSchema).max(1000).default([]),
    /** User messages delivered to the model on its next turn. */
    inputs: z.array(userMessage).max(100).optional(),
  })
  .refine((p) => p.decisions.length > 0 || (p.inputs?.length ?? 0) > 0, { message: 'send at least one decision or input', path: ['decisions'] }));
export type DecidePayload = z.input<typeof decidePayloadSchema>;

/** `forwarded`: the call lives in a sub-run; the decision was passed on to it (its audit records the outcome). */
export type DecisionOutcome = 'approved' | 'rejected' | 'auto_approved' | 'auto_rejected' | 'input_provided' | 'result_provided' | 'forwarded';

export interface AppliedDecision {
  callId: string;
  toolName: string;
  outcome: DecisionOutcome;
  approver?: string;
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

/** What a pending call waits for: a yes/no, values a person fills in, or a result from outside. */
export type PendingKind = 'approval' | 'input' | 'external';

export interface PendingApproval {
  callId: string;
  kind: PendingKind;
  /** For `input`: the fields to fill in. */
  fields?: string[];
  toolName: string;
  /** JSON string, exactly as the model produced it. */
  arguments: string;
  agentName: string;
  /** ISO-8601. */
  requestedAt: string;
  /** When the call times out (ISO-8601), if a timeout applies. */
  expiresAt?: string;
  /** Who may decide it, if the tool or agent says. */
  approvers?: string[];
  /** For a call inside a sub-agent (agent.asTool): the tools that lead to it, e.g. `help_with_contract > get_user_name`. */
  path?: string;
  /** For an MCP tool: the agent's MCP server that offers it (always-rules hold for this server's tool only). */
  mcpServer?: string;
  /** For a call inside a sub-agent: the workflow id of the sub-run that holds it. Decide it through this run all the same. */
  runId?: string;
}

/** Internal: what a sub-run (child workflow) tells its parent whenever it changes. */
export interface ChildReport {
  childWorkflowId: string;
  /** The sub-run waits only for people (or has nothing running). */
  waiting: boolean;
  pending: PendingApproval[];
  /** Decisions passed on by the parent that the sub-run refused (e.g. invalid edited arguments): pending there again. */
  refused?: Array<{ callId: string; because: string; /** The sub-run that refused it (at any depth). */ runId?: string }>;
}

export type AuditDecision = DecisionOutcome | 'timed_out' | 'ignored' | 'audited';

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
  /** `rule`: a sticky always-rule; `onApproval`: the tool's onApproval code decided it. */
  via: 'signal' | 'update' | 'rule' | 'timer' | 'onApproval';
  /** For `ignored`: why the decision changed nothing. */
  ignoredBecause?: string;
  /** For `timed_out`: what the timeout did (the onTimeout policy). */
  onTimeout?: 'reject' | 'approve' | 'fail';
  /** When a reviewer approved with other arguments: what ran instead of `arguments`. */
  editedArguments?: string;
}

export interface Handoff {
  from: string;
  to: string;
  callId: string;
  at: string;
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
  alwaysRules?: Record<string, { decision: 'approve' | 'reject'; message?: string; approver?: string }>;
}

/** The workflow's result: the snapshot of a completed run (its windows smaller: at most 100 newest items and audit entries, about 256 KB each). */
export type RunResult = RunSnapshot & { status: 'Completed'; finalOutput: string };

/** Read a log in pages: entries after `after` (the `next` of the previous page; 0 or absent: from the start), at most `limit`. */
export const pageRequestSchema = shareAcrossRuns('messages.pageRequestSchema', () => z.strictObject({
  after: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
}).optional());
export type PageRequest = z.infer<typeof pageRequestSchema>;
export type { EventPage, RunEvent, RunEventType } from '../domain/runEvents';
import type { EventPage } from '../domain/runEvents';

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

// ── Definitions ──────────────────────────────────────────────────────────────────────────────────────────────
export const approveSignal = defineSignal<[ApprovePayload]>('approve');
export const provideInputSignal = defineSignal<[ProvideInputPayload]>('provideInput');
export const provideResultSignal = defineSignal<[ProvideResultPayload]>('provideResult');
/** Signal `addInput`: `{"message": "..."}` — a user message for the model's next turn. */
export const addInputSignal = defineSignal<[AddInputPayload]>('addInput');
export const rejectSignal = defineSignal<[RejectPayload]>('reject');
/** Validated decisions; the update is rejected (and nothing changes) if any entry is invalid. */
export const decideUpdate = defineUpdate<DecideResult, [DecidePayload]>('decide');
/** Long-poll: returns once the run is waiting only for people, or has ended. Used by Runner.run. */
export const nextPauseUpdate = defineUpdate<RunView, []>('nextPause');
/** Internal signal from a sub-run to its parent run. */
export const childStateSignal = defineSignal<[ChildReport]>('countersignChildState');
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');
export const runStateQuery = defineQuery<RunSnapshot>('runState');
/** The conversation in pages: `{ after?, limit? }` → `{ items, next, total }`. */
export const conversationQuery = defineQuery<ConversationPage, [PageRequest?]>('conversation');
/** The audit log in pages: `{ after?, limit? }` → `{ entries, next, total }`. */
export const auditLogQuery = defineQuery<AuditPage, [PageRequest?]>('auditLog');
/** The run's events after a cursor: `{ after?, limit? }` → `{ events, next, first, ended }` (see domain/runEvents.ts). */
export const eventsQuery = defineQuery<EventPage, [PageRequest?]>('events');


/** First zod issue as one line: `decisions.0.callId: callId must be a non-empty string`. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid payload';
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}
