// The messages of an ask-only gated call's run (a coding agent's hook, the HTTP approvals API; workflows/gatewayCall.ts)
// since change countersign-call-outcomes: its answer is read while the run stays open, and the caller reports what it
// did with an approved call (PostToolUse, POST /v1/approval-requests/{id}/outcome), which the run audits.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { CallOutcome } from './runViews';
import { shareAcrossRuns } from './sharedModules';

export type { CallOutcome } from './runViews';

/** The longest error or text an outcome keeps (characters). */
export const MAX_OUTCOME_CHARS = 2000;
/** How long an approved ask-only call's run stays open for its outcome; one that comes later is not recorded. */
export const OUTCOME_WINDOW = '15 minutes';

export const callOutcomeSchema = shareAcrossRuns(
  'gatewayMessages.callOutcomeSchema',
  () =>
    z.strictObject(
      {
        exitCode: z.int({ error: 'must be a whole number, the exit code' }).min(-1_000_000).max(1_000_000).optional(),
        error: z.string().min(1).max(MAX_OUTCOME_CHARS, `must be at most ${MAX_OUTCOME_CHARS} characters`).optional(),
        text: z.string().min(1).max(MAX_OUTCOME_CHARS, `must be at most ${MAX_OUTCOME_CHARS} characters`).optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: send { exitCode?, error?, text? }`
            : 'must be an object: { exitCode?, error?, text? }',
      },
    ) satisfies z.ZodType<CallOutcome>,
);

/** The run's answer once it has one: when, and the run's result as it will end with it (GatewayRunResult). */
export interface GatewayAnswer {
  answeredAt: string;
  result: unknown;
}

/** The answer, or null while a person has not decided (a query: no history event). */
export const gatewayAnswerQuery = defineQuery<GatewayAnswer | null>('countersignGatewayAnswer');
/** Waits for the answer; fails as the run fails (expired, for one). */
export const awaitAnswerUpdate = defineUpdate<GatewayAnswer>('countersignAwaitAnswer');
/**
 * The caller's outcome of an approved call, audited as `outcome`; without one, the run's wait for it ends (a new
 * identical call takes the run's id). Refused before the answer, after a rejection, and once one was recorded.
 */
export const callOutcomeUpdate = defineUpdate<{ recorded: boolean }, [{ outcome?: CallOutcome }]>(
  'countersignCallOutcome',
);
