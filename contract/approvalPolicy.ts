// How long a person may take, and what happens meanwhile: timeouts, reminders, escalation. Declared per agent
// and per tool (the tool wins), overridable per run at start (the run wins). Pure: used by the workflow (timers)
// and by the model-turn activity (the timeout text a formatter may rewrite).
import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { shareAcrossRuns } from './sharedModules';

function isDuration(value: string): boolean {
  try {
    return msToNumber(value as never) > 0;
  } catch {
    return false;
  }
}

/** '30s', '90m', '24h', '7d', '2 weeks' … — what Temporal accepts as a duration, and positive. */
export const durationSchema = shareAcrossRuns('approvalPolicy.durationSchema', () =>
  z.string().refine(isDuration, { message: 'must be a duration such as "30s", "15m", "24h" or "7d"' }),
);

export const onTimeoutSchema = shareAcrossRuns('approvalPolicy.onTimeoutSchema', () =>
  z.enum(['reject', 'approve', 'fail'], { error: 'must be "reject", "approve" or "fail"' }),
);
export type OnTimeout = z.infer<typeof onTimeoutSchema>;

/** The policy's fields; approvalPolicySchema adds the checks across fields. */
export const approvalPolicyFields = shareAcrossRuns('approvalPolicy.approvalPolicyFields', () =>
  z.strictObject({
    /** How long a call may wait for a decision. No timeout: it waits as long as the run lives. */
    approvalTimeout: durationSchema.optional(),
    /** 'reject' (default): the model hears "Approval timed out after …"; 'approve': it runs; 'fail': the run fails with ApprovalTimedOut. */
    onTimeout: onTimeoutSchema.optional(),
    /** Notify again every so often while the call waits. */
    remindEvery: durationSchema.optional(),
    /** Notify `escalateTo` once the call has waited this long. */
    escalateAfter: durationSchema.optional(),
    escalateTo: z.string().min(1).max(200).optional(),
    /** Who may decide (approver names). Unset: anyone. Asserted by the caller unless decisions are signed; see the README. */
    approvers: z.array(z.string().min(1).max(200)).min(1).optional(),
    /** Approvals a call needs, each from a different approver (one rejection rejects it). Default 1. */
    quorum: z.number().int().min(1).max(20).optional(),
    /** The run's `context.requestedBy` may not approve the run's own calls (separation of duties). */
    excludeRequester: z.boolean().optional(),
    /** Decisions must carry a valid token signed by an approver key (worker-wide: COUNTERSIGN_REQUIRE_SIGNED_DECISIONS=true). */
    signedDecisions: z.boolean().optional(),
    /** How much time approvers may add to a call's expiry in all (`extend`). Unset: no limit. */
    maxExtension: durationSchema.optional(),
    /** Notify once, this long before the call expires. */
    remindBeforeExpiry: durationSchema.optional(),
    /**
     * Standing grants (`countersign grant`): false forbids them; true allows them even where a quorum or signed
     * decisions are required (otherwise those calls are never granted). Unset: grantable unless quorum > 1 or signed.
     */
    grantable: z.boolean().optional(),
  }),
);

export const approvalPolicySchema = shareAcrossRuns('approvalPolicy.approvalPolicySchema', () =>
  approvalPolicyFields.refine((p) => !(p.quorum && p.approvers && p.quorum > p.approvers.length), {
    message: 'is larger than the list of approvers',
    path: ['quorum'],
  }),
);
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** Later layers win field by field: agent < tool < run. */
export function effectivePolicy(...layers: Array<ApprovalPolicy | undefined>): ApprovalPolicy {
  const out: ApprovalPolicy = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [k, v] of Object.entries(layer)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export const durationMs = (d: string): number => msToNumber(d as never);

/** ISO time `after` past `fromIso`. */
export function addDuration(fromIso: string, after: string): string {
  return new Date(Date.parse(fromIso) + durationMs(after)).toISOString();
}

/** The policy a run's own input sets (it wins over the agent's and the tools'); who may approve is the definitions' call. */
export function runPolicyOf(input: ApprovalPolicy): ApprovalPolicy {
  const { approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, remindBeforeExpiry } = input;
  return {
    approvalTimeout,
    onTimeout,
    remindEvery,
    escalateAfter,
    escalateTo,
    ...(remindBeforeExpiry ? { remindBeforeExpiry } : {}),
  };
}
