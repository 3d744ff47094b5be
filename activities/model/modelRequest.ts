// What the model activity is asked for one turn, in provider-neutral terms (chatApi.ts and responsesApi.ts map it
// onto their API), and the header that tells runs apart on the wire.
import type { ModelSettings } from '../../contract/modelSettings';
import type { ConversationItem, ToolSpec } from '../../contract/items';
import type { HostedMcpServer } from '../../agents/hostedMcp';
import type { ConversationRef } from '../../core/run/serverConversation';
import type { HostedTool } from '../../agents/hostedTools';

export interface ModelRequest {
  /** The run's workflow id: sent as the run-id header so logs and scripted servers can tell runs apart. */
  workflowId: string;
  /** The run's turn number: names the turn's delta feed. Without it (older workflow code) the call does not stream. */
  turn?: number;
  /** The agent's model, else the worker's COUNTERSIGN_MODEL. */
  model?: string;
  instructions: string;
  items: ConversationItem[];
  tools: ToolSpec[];
  /** Hosted MCP servers (Responses API only). */
  hostedMcp?: readonly HostedMcpServer[];
  /** Hosted tools: web search, file search, code interpreter, image generation (Responses API only). */
  hostedTools?: readonly HostedTool[];
  /** The run's model settings (its agent's, with the run's own over them). */
  settings?: ModelSettings;
  /** With the agent's outputType: the final answer must be JSON of this schema (structured output). */
  outputSchema?: Record<string, unknown>;
  /** A server-managed conversation (Responses API): `items` are only what the provider lacks; store: true. */
  conversation?: ConversationRef;
}

export const RUN_ID_HEADER = 'X-Countersign-Run-Id';
