// The wire contract of standing grants: the `countersignGrants` workflow, its updates and query. Imported by the
// workflow, the planner (activities/callPlanning.ts), the client library and the CLI; the plain `temporal` CLI
// sends the same JSON. The rules over these shapes live in core/grants/grantsState.ts.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { durationMs, durationSchema } from './approvalPolicy';
import { shareAcrossRuns } from './sharedModules';

// ── Payloads ─────────────────────────────────────────────────────────────────────────────────────────────────
const MAX_WHERE_CHARS = 1000;
const MAX_GRANT_MS = 366 * 24 * 3600_000;

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: object, k: string) => Object.hasOwn(o, k);

/** An object with a `min` or `max` key is a range; any other value is matched exactly (strings with `*` as globs). */
export const isRange = (c: unknown): c is { min?: number; max?: number } => isRecord(c) && (has(c, 'min') || has(c, 'max'));

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
  z.record(z.string().min(1).max(200), z.unknown(), { error: 'must be a JSON object of argument constraints, e.g. {"to":"*@example.com"}' }).superRefine((where, ctx) => {
    if (JSON.stringify(where).length > MAX_WHERE_CHARS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_WHERE_CHARS} characters of JSON` });
    for (const [name, c] of Object.entries(where)) {
      const problem = c === undefined ? 'needs a value' : constraintProblem(c);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  }),
);
export type Where = Record<string, unknown>;

const name = z.string().min(1, 'must not be empty').max(200, 'at most 200 characters');

/** Update `addGrant`: `{"agent":"email-assistant","tool":"send_email","where":{"to":"*@example.com"},"for":"1h","uses":20,"grantedBy":"ann"}` */
export const addGrantRequestSchema = shareAcrossRuns('grants.addGrantRequestSchema', () => z.strictObject({
  agent: name,
  tool: name,
  where: whereSchema,
  /** How long it holds, from when the workflow records it: "30m", "1h", "7d" (at most a year). */
  for: durationSchema.refine((d) => !(durationMs(d) > MAX_GRANT_MS), { message: 'at most 366d', when: (p) => p.issues.length === 0 }),
  /** Calls it may approve in all; absent: any number until it expires. */
  uses: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000).optional(),
  grantedBy: name,
}));
export type AddGrantRequest = z.infer<typeof addGrantRequestSchema>;

/** Update `revokeGrant`: `{"grantId":"g-…","by":"ann"}` */
export const revokeGrantRequestSchema = shareAcrossRuns('grants.revokeGrantRequestSchema', () => z.strictObject({ grantId: name, by: name.optional() }));
export type RevokeGrantRequest = z.infer<typeof revokeGrantRequestSchema>;

/**
 * Update `useGrant`, sent when a call is planned: the call, a key naming it (the same on an activity retry), and who
 * may approve it (the tool's `approvers`; the run's requester under `excludeRequester`): grants by others are skipped.
 */
export const useGrantRequestSchema = shareAcrossRuns('grants.useGrantRequestSchema', () => z.strictObject({
  agent: name,
  tool: name,
  /** The call's arguments, JSON text. */
  arguments: z.string().max(1_000_000),
  callKey: z.string().min(1).max(1000),
  approvers: z.array(name).max(1000).optional(),
  notBy: name.optional(),
}));
export type UseGrantRequest = z.infer<typeof useGrantRequestSchema>;
export type UseGrantResult = { grantId: string; grantedBy: string } | null;

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
}

/** What `grants` lists: an active grant and its uses left (null: no limit). */
export type GrantView = Pick<Grant, 'id' | 'agent' | 'tool' | 'where' | 'grantedBy' | 'grantedAt' | 'expiresAt'> & { usesLeft: number | null };

export interface GrantsState {
  grants: Grant[];
  /** callKey → the grant that call used: an activity retry gets the same answer and takes no second use. */
  used: Record<string, { grantId: string; grantedBy: string; at: string }>;
}


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
export const revokeGrantUpdate = defineUpdate<{ grantId: string; revokedAt: string }, [RevokeGrantRequest]>('revokeGrant');
/** Consumes one use of the first matching grant: `{ grantId, grantedBy }`, or null. Idempotent per callKey. */
export const useGrantUpdate = defineUpdate<UseGrantResult, [UseGrantRequest]>('useGrant');
/** The grants that apply now. */
export const grantsQuery = defineQuery<GrantView[]>('grants');
