// The wire contract of an agent run: workflow type, signals, the `decide` update, queries and their payloads.
// Imported by the workflow, the client library and the CLI alike; admin scripts and the plain `temporal` CLI
// send exactly these JSON shapes. zod schemas validate every payload that crosses the wire.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { approvalPolicyFields, durationSchema } from './approvalPolicy';
import { shareAcrossRuns } from './sharedModules';
import { modelSettingsSchema } from './modelSettings';
import { decisionVerbSchema } from './decisionWords';

export const WORKFLOW_TYPE = 'agentRun';
export const DEFAULT_TASK_QUEUE = 'countersign';

// ── Starting a run ───────────────────────────────────────────────────────────────────────────────────────────
const jsonRecord = shareAcrossRuns('messages.jsonRecord', () => z.record(z.string(), z.unknown()));

export const runInputSchema = shareAcrossRuns('messages.runInputSchema', () =>
  z.object({
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
    /** At maxTurns: 'fail' (MaxTurnsExceeded), 'final_output' (one more turn without tools) or 'ask' (a person allows more turns or stops). Wins over the agent's. */
    onMaxTurns: z.enum(['fail', 'final_output', 'ask']).optional(),
    /** Approval policy for this run: wins over the agent's and the tools' (approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, remindBeforeExpiry). */
    ...approvalPolicyFields.omit({
      approvers: true,
      quorum: true,
      excludeRequester: true,
      signedDecisions: true,
      maxExtension: true,
      grantable: true,
    }).shape,
    /** How long one model call may take before Temporal retries it (default 3 minutes). */
    modelTimeout: durationSchema.optional(),
    /** How long one tool execution may take before Temporal retries it (default 5 minutes). */
    toolTimeout: durationSchema.optional(),
    /** Whole-run deadline: past it the run fails with RunTimedOut, whatever it waits for. */
    runTimeout: durationSchema.optional(),
    /** Continue-as-new past this many history events (also whenever the server suggests it). Default 10000. */
    continueAsNewAfterEvents: z.number().int().min(10).optional(),
    /** Always-rules by tool name, handed down by a parent run whose asTool opted in (shareAlwaysRules). */
    alwaysRules: z
      .record(
        z.string(),
        z.object({
          decision: z.enum(['approve', 'reject']),
          message: z.string().optional(),
          approver: z.string().optional(),
        }),
      )
      .optional(),
    /** Set by a parent run on its sub-run: the tools that lead to it (`ask_lookup`, nested `a > b`), for its notifications' `path`. */
    subRunPath: z.string().optional(),
    /** The session this run belongs to (runner.run(…, { session })): its earlier runs' conversation comes in `history`. */
    session: z.string().min(1).max(200).optional(),
    /** Conversation items the run starts with, before the user's message (a session's earlier runs, trimmed). */
    history: z.array(z.looseObject({ type: z.string() })).optional(),
    /** The model's settings for this run: win over the agent's, key by key (see contract/modelSettings.ts). */
    modelSettings: modelSettingsSchema.optional(),
    /** 'server': the provider keeps the conversation (Responses API: each turn sends only new items, previous_response_id); `{ conversationId }`: an OpenAI conversation to add to. */
    conversation: z.union([z.literal('server'), z.object({ conversationId: z.string().min(1) })]).optional(),
  }),
);
export type RunInput = z.infer<typeof runInputSchema>;

// ── Decisions ────────────────────────────────────────────────────────────────────────────────────────────────
const callId = shareAcrossRuns('messages.callId', () =>
  z.string().min(1, 'must be a non-empty string').max(256, 'is longer than any call id (256 characters)'),
);
const approver = shareAcrossRuns('messages.approver', () =>
  z.string().min(1, 'must be a non-empty name').max(200, 'at most 200 characters').optional(),
);
const text = shareAcrossRuns('messages.text', () => z.string().max(10_000, 'at most 10000 characters').optional());
/** A signed decision's compact JWS (see core/signing/decisionToken.ts); checked by the run, never trusted as is. */
const token = shareAcrossRuns('messages.token', () =>
  z
    .string()
    .min(1, 'must be a compact JWS')
    .max(4096, 'is longer than any decision token (4096 characters)')
    .optional(),
);

/** Arguments a reviewer substitutes when approving: an object, or its JSON text. Checked against the tool's schema. */
const editedArguments = shareAcrossRuns('messages.editedArguments', () =>
  z.union([jsonRecord, z.string().max(100_000, 'at most 100000 characters')]).optional(),
);

/** Signal `approve`: `{"callId": "...", "alwaysApprove": false, "approver": "alice", "reason": "...", "editedArguments": {...}, "token": "<JWS>"}` */
export const approvePayloadSchema = shareAcrossRuns('messages.approvePayloadSchema', () =>
  z.strictObject({ callId, alwaysApprove: z.boolean().optional(), approver, reason: text, editedArguments, token }),
);
/** Signal `reject`: `{"callId": "...", "message": "shown to the model", "alwaysReject": false, "approver": "bob", "token": "<JWS>"}` */
export const rejectPayloadSchema = shareAcrossRuns('messages.rejectPayloadSchema', () =>
  z.strictObject({ callId, message: text, alwaysReject: z.boolean().optional(), approver, reason: text, token }),
);
export type ApprovePayload = z.infer<typeof approvePayloadSchema>;
export type RejectPayload = z.infer<typeof rejectPayloadSchema>;

/** A person's values for an `input` call: `{"time": "10:00"}`. */
const inputValues = shareAcrossRuns('messages.inputValues', () => z.record(z.string(), z.unknown()));
/** An outside system's answer for an `external` call: the result (text or JSON), or an error. */
const externalResult = shareAcrossRuns('messages.externalResult', () =>
  z.union([z.string().max(1_000_000, 'at most 1000000 characters'), jsonRecord, z.array(z.unknown())]),
);

/** Signal `provideInput`: `{"callId": "...", "values": {"time": "10:00"}, "approver": "ann"}` */
export const provideInputPayloadSchema = shareAcrossRuns('messages.provideInputPayloadSchema', () =>
  z.strictObject({ callId, values: inputValues, approver, reason: text }),
);
/** Signal `provideResult`: `{"callId": "...", "result": "..."}` or `{"callId": "...", "error": "..."}` */
export const provideResultPayloadSchema = shareAcrossRuns('messages.provideResultPayloadSchema', () =>
  z
    .strictObject({ callId, result: externalResult.optional(), error: text, approver })
    .refine((p) => (p.result === undefined) !== (p.error === undefined), {
      message: 'send exactly one of result or error',
      path: ['result'],
    }),
);
/** Signal `extend`: `{"callId": "...", "by": "4h", "approver": "ann"}` — more time for a pending call (within its tool's maxExtension). */
export const extendPayloadSchema = shareAcrossRuns('messages.extendPayloadSchema', () =>
  z.strictObject({ callId, by: durationSchema, approver, reason: text }),
);
export type ExtendPayload = z.infer<typeof extendPayloadSchema>;
export type ProvideInputPayload = z.infer<typeof provideInputPayloadSchema>;
export type ProvideResultPayload = z.infer<typeof provideResultPayloadSchema>;

/**
 * One entry of the `decide` update. `approve` / `reject` for approvals (and `reject` skips any kind of call);
 * `input` with `values` for input calls; `result` with `result` or `error` for external calls.
 * For an `uncertain` call (it may or may not have run): `retry` runs it again, `done` with `result` says it ran,
 * `failed` with `error` says it did not (`approve` also retries; `result` with result or error also answers).
 * `always` makes an approve/reject sticky for every later call of that tool in this run. `extend` with `by` gives a
 * pending call more time (within its tool's maxExtension). `token` signs an approve or reject.
 */
export const decisionSchema = shareAcrossRuns('messages.decisionSchema', () =>
  z
    .strictObject({
      callId,
      decision: decisionVerbSchema,
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
      /** A signed decision (approve or reject): a compact JWS by an approver key; see the README. */
      token,
      /** For "extend": how much longer the call may wait, e.g. "4h". */
      by: durationSchema.optional(),
      /** Set by `countersign serve` for a decision made through a one-click link: each link decides once. */
      linkId: z.string().min(1).max(100).optional(),
      /** Decide only while the call's fingerprint (PendingApproval.fingerprint) is still this: what the person saw. */
      fingerprint: z.string().max(500).optional(),
    })
    .refine((d) => d.editedArguments === undefined || d.decision === 'approve', {
      message: 'only an approval can carry editedArguments',
      path: ['editedArguments'],
    })
    .refine((d) => (d.values !== undefined) === (d.decision === 'input'), {
      message: 'an "input" decision carries values, and only it does',
      path: ['values'],
    })
    .refine((d) => d.decision !== 'result' || (d.result === undefined) !== (d.error === undefined), {
      message: 'a "result" decision carries exactly one of result or error',
      path: ['result'],
    })
    .refine(
      (d) => ['result', 'done', 'failed'].includes(d.decision) || (d.result === undefined && d.error === undefined),
      { message: 'only a "result", "done" or "failed" decision carries result or error', path: ['result'] },
    )
    .refine((d) => d.decision !== 'done' || (d.result !== undefined && d.error === undefined), {
      message: 'a "done" decision carries result (what the model gets), and no error',
      path: ['result'],
    })
    .refine((d) => d.decision !== 'failed' || (d.error !== undefined && d.result === undefined), {
      message: 'a "failed" decision carries error (what the model gets), and no result',
      path: ['error'],
    })
    .refine((d) => d.token === undefined || d.decision === 'approve' || d.decision === 'reject', {
      message: 'only an approve or reject decision carries a token',
      path: ['token'],
    })
    .refine((d) => (d.by !== undefined) === (d.decision === 'extend'), {
      message: 'an "extend" decision carries by (e.g. "4h"), and only it does',
      path: ['by'],
    }),
);
export type Decision = z.infer<typeof decisionSchema>;

/** A user message for the model's next turn (the OpenAI Agents SDK's `state.addInput()`). */
const userMessage = shareAcrossRuns('messages.userMessage', () =>
  z.string().min(1, 'must not be empty').max(100_000, 'at most 100000 characters'),
);
export const addInputPayloadSchema = shareAcrossRuns('messages.addInputPayloadSchema', () =>
  z.strictObject({ message: userMessage }),
);
export type AddInputPayload = z.infer<typeof addInputPayloadSchema>;

export const decidePayloadSchema = shareAcrossRuns('messages.decidePayloadSchema', () =>
  z
    .strictObject({
      decisions: z.array(decisionSchema).max(1000).default([]),
      /** User messages delivered to the model on its next turn. */
      inputs: z.array(userMessage).max(100).optional(),
      /**
       * Answer only when the run next waits for people or ends, with the RunView `nextPause` answers, instead of the
       * DecideResult (one update where Runner.run(state) sent decide, then nextPause). Workers before it refuse the key.
       */
      waitForPause: z.boolean().optional(),
    })
    .refine((p) => p.decisions.length > 0 || (p.inputs?.length ?? 0) > 0, {
      message: 'send at least one decision or input',
      path: ['decisions'],
    }),
);
export type DecidePayload = z.input<typeof decidePayloadSchema>;

import type {
  AuditPage,
  ChildReport,
  ConversationPage,
  DecideResult,
  PendingApproval,
  RunSnapshot,
  RunView,
} from './runViews';

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────────────────
/** Read a log in pages: entries after `after` (the `next` of the previous page; 0 or absent: from the start), at most `limit`. */
export const pageRequestSchema = shareAcrossRuns('messages.pageRequestSchema', () =>
  z
    .strictObject({
      after: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    })
    .optional(),
);
export type PageRequest = z.infer<typeof pageRequestSchema>;
import type { EventPage } from './runEvents';

// ── Definitions ──────────────────────────────────────────────────────────────────────────────────────────────
export const approveSignal = defineSignal<[ApprovePayload]>('approve');
export const provideInputSignal = defineSignal<[ProvideInputPayload]>('provideInput');
export const provideResultSignal = defineSignal<[ProvideResultPayload]>('provideResult');
/** Signal `addInput`: `{"message": "..."}` — a user message for the model's next turn. */
export const addInputSignal = defineSignal<[AddInputPayload]>('addInput');
export const rejectSignal = defineSignal<[RejectPayload]>('reject');
export const extendSignal = defineSignal<[ExtendPayload]>('extend');
/** Validated decisions; the update is rejected (and nothing changes) if any entry is invalid. */
export const decideUpdate = defineUpdate<DecideResult, [DecidePayload]>('decide');
/** The same `decide` update, as sent with `waitForPause: true`: the RunView at the next pause (DecideResult from older workers). */
export const decideUntilPauseUpdate = defineUpdate<RunView | DecideResult, [DecidePayload]>('decide');
/** Long-poll: returns once the run is waiting only for people, or has ended. Used by Runner.run. */
export const nextPauseUpdate = defineUpdate<RunView, []>('nextPause');
/** Internal signal from a sub-run to its parent run. */
export const childStateSignal = defineSignal<[ChildReport]>('countersignChildState');
/** Internal signal from a run to its sub-run: a decision for one of the sub-run's calls, the `Decision` as it came (decisionSchema). */
export const parentDecisionSignal = defineSignal<[Decision]>('countersignParentDecision');
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');
export const runStateQuery = defineQuery<RunSnapshot>('runState');
/** The conversation in pages: `{ after?, limit? }` → `{ items, next, total }`. */
export const conversationQuery = defineQuery<ConversationPage, [PageRequest?]>('conversation');
/** The audit log in pages: `{ after?, limit? }` → `{ entries, next, total }`. */
export const auditLogQuery = defineQuery<AuditPage, [PageRequest?]>('auditLog');
/** The run's events after a cursor: `{ after?, limit? }` → `{ events, next, first, ended }` (see contract/runEvents.ts). */
export const eventsQuery = defineQuery<EventPage, [PageRequest?]>('events');
