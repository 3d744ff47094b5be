// A tool call as the model-turn activity planned it for the workflow: refused at once (error), run now, or
// waiting for a person (approval, input, external). Plain data, shared by the activities and the workflow.

export interface AgentRef {
  name: string;
  version: string;
}

export interface CallBase {
  callId: string;
  toolName: string;
  arguments: string;
}

/** Calls the workflow carries out itself instead of running an activity: handoffs and sub-agents. */
export interface Special {
  handoffTo?: string;
  subAgent?: string;
  shareAlwaysRules?: boolean;
  /** A hosted MCP server's approval request (its label): the answer is an mcp_approval_response item, nothing runs here. */
  hostedMcp?: string;
}

/** What a tool's onApproval code, or a standing grant, decided for a gated call (in the model-turn activity): no person is asked. */
export interface AutoDecision {
  decision: 'approve' | 'reject';
  reason?: string;
  /** With reject: what the model sees. */
  message?: string;
  /** A standing grant approved it (audited `granted`, via `grant`): its id, and who granted it (the approver). */
  grantId?: string;
  grantedBy?: string;
}

/** A tool call as the workflow should treat it. */
export type PlannedCall =
  | (CallBase & { disposition: 'error'; output: string })
  | (CallBase & { disposition: 'run'; audit?: boolean } & Special)
  | (CallBase & { disposition: 'approval' | 'external'; rejectionText: string; timeoutText?: string; auto?: AutoDecision; /** Decisions need a valid signed token. */ signedDecisions?: true } & Special)
  | (CallBase & { disposition: 'input'; fields: string[]; rejectionText: string; timeoutText?: string });
