// The contract of a gated MCP call (`countersign gateway`, issue 47): one durable run per call, of its own
// workflow type, that books the call in the same approval book as an agent's and answers the same queries, signals
// and `decide` update (messages.ts), so pending, approve, reject, show and audit treat it as any run.
import type { ToolSnapshot } from './agentSnapshot';
import type { WaitTerms } from '../approvals/plannedCall';
import type { RunResult } from '../../contract/runViews';

export const GATEWAY_WORKFLOW_TYPE = 'countersignGatewayCall';
/** The one call id of a gated call's run (a run books exactly one call). */
export const GATEWAY_CALL_ID = 'call';

/**
 * The `server` of a call that asks a person and runs nothing (a coding agent's hook, the HTTP approvals API): once
 * approved, its run's one activity answers with the approved arguments, and the caller acts itself.
 */
export const ASK_ONLY_SERVER = '(ask-only)';

/** What the gateway starts a gated call's run with: the call, its tool and the terms it waits on, decided at the gateway. */
export interface GatewayCallInput {
  /** The gateway's name (its config's `name`): the calls' agent in pending, the inbox, Slack and the ledger. */
  gateway: string;
  /** The MCP client's principal: the call's requester (context.requestedBy). */
  requester: string;
  /** The upstream server (its name in the config) and the tool as the upstream names it. */
  server: string;
  upstreamTool: string;
  /** The tool as the gateway lists it (with its prefix, if its server has one). */
  tool: ToolSnapshot;
  /** The arguments, as JSON text. */
  arguments: string;
  wait: WaitTerms;
  rejectionText: string;
  /** The gateway's task queue: where the upstream call's activity runs. */
  taskQueue: string;
}

/** What the upstream call's activity is given; the idempotency key is the run's id and call id, stable across retries. */
export interface GatewayToolRequest {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  idempotencyKey: string;
}

/** An MCP tools/call result as the upstream answered it (content, structuredContent, isError): plain JSON. */
export type GatewayToolResult = { content: unknown[]; isError?: boolean } & Record<string, unknown>;

/** How a gated call's run ended, for the client that is waiting on it. */
export type GatewayCallResult =
  | { outcome: 'ran'; result: GatewayToolResult }
  /** Rejected (or expired) with the reviewer's words, or resolved by a person with the result they gave. */
  | { outcome: 'rejected' | 'resolved'; text: string };

/** A gated call's run ends as any run does (its snapshot: show and audit read it), with what the client gets. */
export type GatewayRunResult = RunResult & { gatewayCall: GatewayCallResult };
