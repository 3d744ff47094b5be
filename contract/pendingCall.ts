// The pending call: a tool call that waits for a person, as a run shows it (the `pending` query, the run's view, a
// sub-run's report to its parent, RunState's interruptions). One zod schema; every other shape of a pending call in the
// code is derived from it and named for what it adds (docs/architecture.md, "The pending call's types"), so a field
// added here reaches every reader and survives RunState's round trip. No Temporal imports.
import { z } from 'zod';
import { shareAcrossRuns } from './sharedModules';

/**
 * What a pending call waits for: a yes/no, values a person fills in, a result from outside, (`uncertain`) word on a
 * tool that is not idempotent and may or may not have run: its attempt died or timed out after it started, or
 * (`guardrail`) a yes/no on a tripped guardrail whose `onTripwire` is 'ask': approved, the run goes on as if it passed.
 */
export const pendingKindSchema = shareAcrossRuns('pendingCall.kind', () =>
  z.enum(['approval', 'input', 'external', 'uncertain', 'guardrail']),
);
export type PendingKind = z.infer<typeof pendingKindSchema>;

/** A tool's impact preview: a line, maybe more; `failed` when the preview threw or timed out (summary says why). */
export const callPreviewSchema = shareAcrossRuns('pendingCall.preview', () =>
  z.object({ summary: z.string(), details: z.string().optional(), failed: z.literal(true).optional() }),
);
export type CallPreview = z.infer<typeof callPreviewSchema>;

/** Approvals a call needs, and who has approved so far ("1 of 2 approvals (ann)"). */
export const quorumSchema = shareAcrossRuns('pendingCall.quorum', () =>
  z.object({ needed: z.number(), approvedBy: z.array(z.string()) }),
);
export type Quorum = z.infer<typeof quorumSchema>;

/**
 * The guardrail that put this item before a person: for kind `guardrail`, the agent's input or output guardrail that
 * tripped (`checked`: what it checked, shortened); for a tool call, the tool input guardrail that answered `ask`.
 */
export const guardrailAskSchema = shareAcrossRuns('pendingCall.guardrail', () =>
  z.object({
    name: z.string(),
    stage: z.enum(['input', 'output', 'tool_input']),
    /** What the guardrail checked: the run's input, the final output, or the call's arguments (shortened). */
    checked: z.string().optional(),
    /** The guardrail's outputInfo, as it returned it (JSON data). */
    outputInfo: z.unknown().optional(),
  }),
);
export type GuardrailAsk = z.infer<typeof guardrailAskSchema>;

export const pendingApprovalSchema = shareAcrossRuns('pendingCall.pendingApproval', () =>
  z.object({
    callId: z.string(),
    /** Always present on the wire; absent only in states written before it always was: then an approval. */
    kind: pendingKindSchema.default('approval'),
    /** For `input`: the fields to fill in. */
    fields: z.array(z.string()).optional(),
    toolName: z.string(),
    /** JSON string, exactly as the model produced it. */
    arguments: z.string(),
    agentName: z.string(),
    /** ISO-8601. */
    requestedAt: z.string(),
    /** When the call times out (ISO-8601), if a timeout applies. */
    expiresAt: z.string().optional(),
    /** Who may decide it, if the tool or agent says. */
    approvers: z.array(z.string()).optional(),
    /** For a call inside a sub-agent (agent.asTool): the tools that lead to it, e.g. `help_with_contract > get_user_name`. */
    path: z.string().optional(),
    /** For an MCP tool: the agent's MCP server that offers it (always-rules hold for this server's tool only). */
    mcpServer: z.string().optional(),
    /** For a call inside a sub-agent: the workflow id of the sub-run that holds it. Decide it through this run all the same. */
    runId: z.string().optional(),
    /** For a call that needs several approvers: how many, and who has approved so far. */
    quorum: quorumSchema.optional(),
    /** Decisions on it must carry a valid signed token (`token`). */
    signedDecisions: z.literal(true).optional(),
    /** The run's `context.requestedBy`, when the policy says that person may not approve it (excludeRequester). */
    excludedApprover: z.string().optional(),
    /** For `uncertain`: what happened to the attempt that may or may not have run. */
    uncertainBecause: z.string().optional(),
    /** What the call would change, in the tool's words (its `preview`, computed when the call was planned). */
    preview: callPreviewSchema.optional(),
    /**
     * The tool's fingerprint of what the call acts on, when it was planned (or last found changed): decisions apply to
     * this state only; signed tokens and links carry its digest (`fp`). Shown to approvers, so it holds no secrets.
     */
    fingerprint: z.string().optional(),
    /** The call was approved, but what it acts on changed before it ran: it did not run, and waits for a decision again. */
    stale: z.object({ was: z.string(), now: z.string() }).optional(),
    /** What the run was asked: its first user message, shortened (at most 300 characters). */
    request: z.string().optional(),
    /** The assistant's words in the turn that made the call, just before it, shortened (at most 500 characters). */
    assistantSaid: z.string().optional(),
    /** Why a guardrail put it before a person (kind `guardrail`, or a tool input guardrail's `ask`). */
    guardrail: guardrailAskSchema.optional(),
    /**
     * Why code could not decide it, so a person does: the tool's needsApproval, onApproval or input guardrail threw,
     * took too long, or answered what it may not ("needsApproval answered 'yes', not a boolean: a person decides").
     */
    askedBecause: z.string().optional(),
  }),
);
/** The pending call as a run shows it. */
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;
