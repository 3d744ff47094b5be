// The wire contract of standing grants: the `countersignGrants` workflow, its updates and query. Imported by the
// workflow, the planner (activities/callPlanning.ts), the client library and the CLI; the plain `temporal` CLI
// sends the same JSON. The rules over these shapes live in core/grants/grantsState.ts.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { durationMs, durationSchema } from './approvalPolicy';
import { shareAcrossRuns } from './sharedModules';

// ── Payloads ─────────────────────────────────────────────────────────────────────────────────────────────────
const MAX_WHERE_CHARS = 1000;
/** The longest a grant holds, on every path (a request's `for`, a signed token's expiry, a start input's grants). */
export const MAX_GRANT_MS = 366 * 24 * 3600_000;
export const MAX_GRANT_USES = 1_000_000;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: object, k: string) => Object.hasOwn(o, k);

/** An object with a `min` or `max` key is a range; any other value is matched exactly (strings with `*` as globs). */
export const isRange = (c: unknown): c is { min?: number; max?: number } =>
  isRecord(c) && (has(c, 'min') || has(c, 'max'));

/** Why a constraint is unusable, or undefined. */
function constraintProblem(c: unknown): string | undefined {
  if (isRange(c)) {
    if (Object.keys(c).some((k) => k !== 'min' && k !== 'max')) return 'a range has only "min" and/or "max"';
    const bounds = [c.min, c.max].filter((b) => b !== undefined);
    if (!bounds.every((b) => typeof b === 'number' && Number.isFinite(b))) return '"min" and "max" must be numbers';
    if (c.min !== undefined && c.max !== undefined && c.min > c.max) return '"min" is larger than "max"';
  }
  return undefined;
}

/** `where`: per argument name, an exact JSON value, a `*` glob string, or `{ "max": n }` / `{ "min": n }`. */
export const whereSchema = shareAcrossRuns('grants.whereSchema', () =>
  z
    .record(z.string().min(1).max(200), z.unknown(), {
      error: 'must be a JSON object of argument constraints, e.g. {"to":"*@example.com"}',
    })
    .superRefine((where, ctx) => {
      if (JSON.stringify(where).length > MAX_WHERE_CHARS)
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_WHERE_CHARS} characters of JSON` });
      for (const [name, c] of Object.entries(where)) {
        const problem = c === undefined ? 'needs a value' : constraintProblem(c);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      }
    }),
);
export type Where = Record<string, unknown>;

const name = z.string().min(1, 'must not be empty').max(200, 'at most 200 characters');

/** Update `addGrant`: `{"agent":"email-assistant","tool":"send_email","where":{"to":"*@example.com"},"for":"1h","uses":20,"grantedBy":"ann"}` */
export const addGrantRequestSchema = shareAcrossRuns('grants.addGrantRequestSchema', () =>
  z.strictObject({
    agent: name,
    tool: name,
    where: whereSchema,
    /** How long it holds, from when the workflow records it: "30m", "1h", "7d" (at most a year). */
    for: durationSchema.refine((d) => !(durationMs(d) > MAX_GRANT_MS), {
      message: 'at most 366d',
      when: (p) => p.issues.length === 0,
    }),
    /** Calls it may approve in all; absent: any number until it expires. */
    uses: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_GRANT_USES).optional(),
    grantedBy: name,
    /**
     * A signed grant (client/signing/grantSigning.ts): a compact JWS by `grantedBy`'s approver key over this grant. Required
     * for a tool that needs signed decisions or a quorum; checked by the grants workflow against the worker's approver keys.
     */
    token: z.string().min(1).max(4096).optional(),
  }),
);
export type AddGrantRequest = z.infer<typeof addGrantRequestSchema>;

/** Update `revokeGrant`: `{"grantId":"g-…","by":"ann"}` */
export const revokeGrantRequestSchema = shareAcrossRuns('grants.revokeGrantRequestSchema', () =>
  z.strictObject({ grantId: name, by: name.optional() }),
);
export type RevokeGrantRequest = z.infer<typeof revokeGrantRequestSchema>;

/**
 * Update `useGrant`, sent when a call is planned: the call, a key naming it (the same on an activity retry), and who
 * may approve it (the tool's `approvers`; the run's requester under `excludeRequester`): grants by others are skipped.
 */
export const useGrantRequestSchema = shareAcrossRuns('grants.useGrantRequestSchema', () =>
  z.strictObject({
    agent: name,
    tool: name,
    /** The call's arguments, JSON text. */
    arguments: z.string().max(1_000_000),
    callKey: z.string().min(1).max(1000),
    approvers: z.array(name).max(1000).optional(),
    notBy: name.optional(),
    /** The tool needs signed decisions or a quorum: only signed grants apply (the planner checks their token again). */
    signedOnly: z.literal(true).optional(),
  }),
);
export type UseGrantRequest = z.infer<typeof useGrantRequestSchema>;
/** The grant a call used; a signed grant's `token` too, so the planner checks its signature itself. */
export type UseGrantResult = { grantId: string; grantedBy: string; token?: string } | null;

export interface Grant {
  id: string;
  agent: string;
  tool: string;
  where: Where;
  grantedBy: string;
  grantedAt: string;
  expiresAt: string;
  /** Absent: no limit on uses. */
  uses?: number;
  used: number;
  /** When the last use was taken (the end of an exhausted grant). */
  exhaustedAt?: string;
  revokedAt?: string;
  revokedBy?: string;
  /** A signed grant: its token, and the key (`kid`, the approver) and token id (`jti`) the grants workflow checked. */
  token?: string;
  signed?: { kid: string; jti: string };
}

/** What `grants` lists: an active grant and its uses left (null: no limit). */
export type GrantView = Pick<Grant, 'id' | 'agent' | 'tool' | 'where' | 'grantedBy' | 'grantedAt' | 'expiresAt'> & {
  usesLeft: number | null;
  signedBy?: string;
};

export interface GrantsState {
  grants: Grant[];
  /** callKey → the grant that call used: an activity retry gets the same answer and takes no second use. */
  used: Record<string, { grantId: string; grantedBy: string; at: string }>;
  /** Signed grants' token ids → when the token expires (ISO-8601): a token makes one grant, even after it is revoked. */
  jtis?: Record<string, string>;
}

const instant = () => z.iso.datetime({ offset: true, error: 'must be an ISO-8601 time' });
const grantSchema = shareAcrossRuns('grants.grantSchema', () =>
  z.strictObject({
    id: name,
    agent: name,
    tool: name,
    where: whereSchema,
    grantedBy: name,
    grantedAt: instant(),
    expiresAt: instant(),
    uses: z.number().int().min(1).max(MAX_GRANT_USES).optional(),
    used: z.number().int().min(0),
    exhaustedAt: instant().optional(),
    revokedAt: instant().optional(),
    revokedBy: name.optional(),
    token: z.string().min(1).max(4096).optional(),
    signed: z.strictObject({ kid: name, jti: z.string().min(1).max(1000) }).optional(),
  }),
);

/**
 * The workflow's start input, as anyone who can start a workflow may craft it: checked like every update (the
 * workflow then caps expiries at MAX_GRANT_MS and uses at MAX_GRANT_USES, core/grants/grantsState.ts capGrants).
 */
export const grantsCarrySchema = shareAcrossRuns('grants.grantsCarrySchema', () =>
  z
    .strictObject({
      state: z
        .strictObject({
          grants: z.array(grantSchema).max(10_000),
          used: z.record(z.string().max(1000), z.strictObject({ grantId: name, grantedBy: name, at: instant() })),
          jtis: z.record(z.string().max(1000), instant()).optional(),
        })
        .optional(),
      continueAsNewAfterEvents: z.number().int().min(20, 'must be at least 20').max(100_000).optional(),
    })
    .optional(),
);

// ── Definitions ──────────────────────────────────────────────────────────────────────────────────────────────

export const GRANTS_WORKFLOW_TYPE = 'countersignGrants';
/**
 * One grants workflow per namespace, on a worker's task queue. COUNTERSIGN_GRANTS_WORKFLOW_ID (temporal.config.ts)
 * names another one (for deployments, or test suites, that share a namespace); the worker and its clients must agree.
 */
export const GRANTS_WORKFLOW_ID = 'countersign-grants';

/** Continue-as-new past this many history events (or when the server suggests it). */
export const GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS = 2000;

/** What `addGrant` answers: the new grant's id, its expiry, and a warning when it can never apply as made. */
export interface AddGrantResult {
  grantId: string;
  expiresAt: string;
  warning?: string;
  /** A signed grant: the approver whose key signed it. */
  signedBy?: string;
}

/** The workflow's input: nothing when the first grant starts it; a continued-as-new run gets what the last one held. */
export interface GrantsCarry {
  state?: GrantsState;
  /** Continue as new past this many history events (default GRANTS_CONTINUE_AS_NEW_AFTER_EVENTS); carried along. */
  continueAsNewAfterEvents?: number;
}

/** Refused in one line, nothing created: malformed (by the validator), or an agent or tool unknown or not grantable (the handler asks the worker). */
export const addGrantUpdate = defineUpdate<AddGrantResult, [AddGrantRequest]>('addGrant');
/** Refused for an unknown grant id, or one no longer active. */
export const revokeGrantUpdate = defineUpdate<{ grantId: string; revokedAt: string }, [RevokeGrantRequest]>(
  'revokeGrant',
);
/** Consumes one use of the first matching grant: `{ grantId, grantedBy }`, or null. Idempotent per callKey. */
export const useGrantUpdate = defineUpdate<UseGrantResult, [UseGrantRequest]>('useGrant');
/** The grants that apply now. */
export const grantsQuery = defineQuery<GrantView[]>('grants');
