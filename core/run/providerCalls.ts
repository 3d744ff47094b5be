// Calls the model provider executed itself within a turn (hosted tools and hosted MCP calls), read off the
// conversation's provider items: the one place that says what such an item is, for the run's events, `countersign
// show`, `audit` and `conversation`. No person gated them: the provider ran them before the turn's answer came back.
import type { ConversationItem } from '../../contract/items';
import { definedFields } from '../definedFields';

export interface ProviderCall {
  /** The provider's item id. */
  callId: string;
  /** web_search, file_search, code_interpreter, image_generation, or the hosted MCP tool's name. */
  toolName: string;
  /** What it was asked, as JSON text: `{"query"}`, `{"queries"}`, `{"code"}`, `{"prompt"}`, an MCP call's arguments. */
  arguments: string;
  status?: string;
  /** For a hosted MCP call: its server label. */
  server?: string;
}

const HOSTED = ['web_search_call', 'file_search_call', 'code_interpreter_call', 'image_generation_call'];

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function askedOf(item: Record<string, unknown>): string {
  const action = item.action as Record<string, unknown> | undefined;
  const asked = {
    web_search_call: { query: str(action?.query), url: str(action?.url) },
    file_search_call: { queries: Array.isArray(item.queries) ? item.queries.map(String).join('; ') : undefined },
    code_interpreter_call: { code: str(item.code) },
    image_generation_call: { prompt: str(item.revised_prompt) },
  }[String(item.type)];
  return JSON.stringify(definedFields(asked ?? {}));
}

/** The provider-executed call an item records, if it is one. */
export function providerCallOf(item: ConversationItem): ProviderCall | undefined {
  if (item.type !== 'provider_item') return undefined;
  const p = item.item;
  const type = String(p.type);
  const status = str(p.status);
  const base = { callId: String(p.id ?? ''), ...(status ? { status } : {}) };
  if (HOSTED.includes(type)) return { ...base, toolName: type.slice(0, -'_call'.length), arguments: askedOf(p) };
  if (type === 'mcp_call')
    return {
      ...base,
      toolName: String(p.name ?? 'mcp'),
      arguments: str(p.arguments) ?? '',
      ...(str(p.server_label) ? { server: str(p.server_label) } : {}),
    };
  return undefined;
}

/** The provider-executed calls among items. */
export const providerCallsIn = (items: readonly ConversationItem[]): ProviderCall[] =>
  items.flatMap((i) => providerCallOf(i) ?? []);
