// A tool call as the model-turn activity planned it for the workflow: refused at once (error), run now, or
// waiting for a person (approval, input, external) on terms decided then and carried as data (WaitTerms): nothing
// downstream looks at a policy again. Plain data, shared by the activities and the workflow.
import { type OnTimeout, addDuration, durationMs } from '../../contract/approvalPolicy';
import type { Booking } from './bookCall';
import type { SignedBy } from './decisionRules';
import type { PendingApproval } from '../../contract/runViews';
import type { YesNo } from '../../contract/decisionWords';
import { definedFields } from '../definedFields';

export interface AgentRef {
  name: string;
  version: string;
}

/**
 * What every planned call has: the pending call's own fields (for a call a person decides, `preview` and `fingerprint`
 * as the tool gave them when it was planned; the fingerprint is checked again before it runs), plus how it runs.
 */
export type CallBase = Pick<
  PendingApproval,
  'callId' | 'toolName' | 'arguments' | 'preview' | 'fingerprint' | 'guardrail' | 'askedBecause'
> & {
  /** The tool is not idempotent: its activity runs at most once; an attempt that may have run makes the call `uncertain`. */
  idempotent?: false;
  /** A tool with a `timeout`: what the model gets if it runs past it (after its retries; its errorText, else the default). */
  timedOutText?: string;
  /** With fingerprint: a changed target rejects the call instead of asking again. */
  onStale?: 'reject';
};

/** Calls the workflow carries out itself instead of running an activity: handoffs and sub-agents. */
export interface Special {
  handoffTo?: string;
  subAgent?: string;
  shareAlwaysRules?: boolean;
  /** A hosted MCP server's approval request (its label): the answer is an mcp_approval_response item, nothing runs here. */
  hostedMcp?: string;
}

/** What a tool's onApproval code, or a standing grant, decided for a gated call (in the model-turn activity): no person is asked. */
export interface PlannedAutoDecision {
  decision: YesNo;
  reason?: string;
  /** With reject: what the model sees. */
  message?: string;
  /** A standing grant approved it (audited `granted`, via `grant`): its id, and who granted it (the approver). */
  grantId?: string;
  grantedBy?: string;
  /** A signed grant (a tool that needs signed decisions or a quorum): whose key signed it, as the planner checked it. */
  signed?: SignedBy;
}

/**
 * How a call waits for a person, decided once when it is planned: the agent's policy < the tool's < the run's,
 * and the worker's settings. The book and the timers read these and nothing else.
 */
export interface WaitTerms {
  /** How long it may wait ('24h'); absent: as long as the run lives. */
  timeout?: string;
  /** What the end of that wait does. An external call only rejects or fails; a signed or quorum call is never approved by a run's own onTimeout. */
  onTimeout?: OnTimeout;
  /** The agent's own words (its toolErrorFormatter) for a call whose time ran out; absent: the default text, which names the wait and any extension. */
  timeoutText?: string;
  /** How much approvers may add to the expiry in all. */
  maxExtension?: string;
  remindEvery?: string;
  remindBeforeExpiry?: string;
  escalateAfter?: string;
  escalateTo?: string;
  /** Who may decide; how many distinct approvals it needs; who may not approve (the run's requester). */
  approvers?: string[];
  quorum?: number;
  excludedApprover?: string;
  /** Decisions need a valid signed token. */
  signedDecisions?: true;
}

/** A tool call as the model-turn activity planned it (recorded in history as the activity's result): its disposition says how the workflow treats it. */
export type PlannedCall =
  | (CallBase & { disposition: 'error'; output: string })
  | (CallBase & { disposition: 'run'; audit?: boolean; review?: true } & Special)
  | (CallBase & {
      disposition: 'approval' | 'external';
      rejectionText: string;
      wait: WaitTerms;
      auto?: PlannedAutoDecision;
    } & Special)
  | (CallBase & { disposition: 'input'; fields: string[]; rejectionText: string; wait: WaitTerms });

/** A planned call that waits for a person: the one kind of planned call that becomes a pending call (bookingFor). */
export type WaitingCall = Exclude<PlannedCall, { disposition: 'error' | 'run' }>;

/** What a waiting call enters the approval book with: its planned terms, turned into times from when it was requested. */
export function bookingFor(
  c: WaitingCall,
  where: { agentName: string; mcpServer?: string },
  requestedAt: string,
): Booking {
  const w = c.wait;
  const mcpServer = 'hostedMcp' in c && c.hostedMcp ? c.hostedMcp : where.mcpServer;
  const reminders = {
    remindEvery: w.remindEvery,
    remindBeforeExpiry: w.timeout ? w.remindBeforeExpiry : undefined,
    escalateAfter: w.escalateAfter,
    escalateTo: w.escalateTo,
  };
  const booking: Booking = {
    callId: c.callId,
    kind: c.disposition,
    ...(c.disposition === 'input' ? { fields: c.fields } : {}),
    toolName: c.toolName,
    arguments: c.arguments,
    agentName: where.agentName,
    requestedAt,
    rejectionText: c.rejectionText,
    ...(w.timeout
      ? {
          timeout: w.timeout,
          expiresAt: addDuration(requestedAt, w.timeout),
          onTimeout: w.onTimeout ?? 'reject',
          ...(w.timeoutText ? { timeoutText: w.timeoutText } : {}),
        }
      : {}),
    ...(w.timeout && w.maxExtension ? { maxExtensionMs: durationMs(w.maxExtension) } : {}),
    ...(Object.values(reminders).some((v) => v !== undefined) ? { reminders: definedFields(reminders) } : {}),
    ...(w.approvers ? { approvers: w.approvers } : {}),
    ...(mcpServer ? { mcpServer } : {}),
    ...(w.quorum ? { quorum: { needed: w.quorum, approvedBy: [] } } : {}),
    ...(w.signedDecisions ? { signedDecisions: true as const } : {}),
    ...(w.excludedApprover !== undefined ? { excludedApprover: w.excludedApprover } : {}),
    ...(c.preview ? { preview: c.preview } : {}),
    ...(c.fingerprint !== undefined ? { fingerprint: c.fingerprint } : {}),
    ...(c.guardrail ? { guardrail: c.guardrail } : {}),
    ...(c.askedBecause ? { askedBecause: c.askedBecause } : {}),
  };
  return booking;
}
