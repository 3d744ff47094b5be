// Hosted tools (Responses API only): web search, file search, code interpreter and image generation, run by the model
// provider inside a turn. Placed in an agent's `tools` beside function tools (the OpenAI Agents SDK's names and
// options); defineAgent keeps them apart, the run's snapshot records them, and the Responses request sends them. The
// provider's calls (`web_search_call`, …) come back as provider items and stay in the conversation. No person can
// gate them: the provider runs them before the turn's answer reaches the worker (hosted MCP with requireApproval can be gated).
import type OpenAI from 'openai';
import { definedFields } from '../core/definedFields';

/** A hosted tool as an agent holds it: its name and the Responses API tool it sends (plain JSON). */
export interface HostedTool {
  type: 'hosted_tool';
  name: string;
  /** The Responses API tool, as sent (snake_case). */
  providerData: Record<string, unknown>;
  /** What the request's `include` asks for with it (e.g. file_search_call.results). */
  include?: string[];
}

export interface WebSearchToolOptions {
  name?: string;
  userLocation?: OpenAI.Responses.WebSearchTool.UserLocation;
  filters?: { allowedDomains?: string[] | null };
  /** Default 'medium'. */
  searchContextSize?: 'low' | 'medium' | 'high';
  externalWebAccess?: boolean;
}

export interface FileSearchToolOptions {
  name?: string;
  maxNumResults?: number;
  /** Include the search results in the provider's file_search_call item. */
  includeSearchResults?: boolean;
  rankingOptions?: OpenAI.Responses.FileSearchTool.RankingOptions;
  filters?: OpenAI.ComparisonFilter | OpenAI.CompoundFilter;
}

export interface CodeInterpreterToolOptions {
  name?: string;
  /** Include the code's outputs in the provider's code_interpreter_call item. */
  includeOutputs?: boolean;
  /** A container id, or `{ type: 'auto' }` (the default). */
  container?: string | { type: 'auto'; file_ids?: string[] };
}

export interface ImageGenerationToolOptions {
  name?: string;
  background?: 'transparent' | 'opaque' | 'auto';
  inputFidelity?: 'high' | 'low' | null;
  inputImageMask?: { image_url?: string; file_id?: string };
  model?: string;
  moderation?: 'auto' | 'low';
  outputCompression?: number;
  outputFormat?: 'png' | 'webp' | 'jpeg';
  partialImages?: number;
  quality?: 'low' | 'medium' | 'high' | 'auto';
  size?: '1024x1024' | '1024x1536' | '1536x1024' | 'auto';
}

const hosted = (name: string, providerData: Record<string, unknown>, include?: string[]): HostedTool =>
  Object.freeze({
    type: 'hosted_tool' as const,
    name,
    providerData: definedFields(providerData),
    ...(include ? { include } : {}),
  });

/** The provider searches the web within a turn. */
export function webSearchTool(options: WebSearchToolOptions = {}): HostedTool {
  return hosted(options.name ?? 'web_search', {
    type: 'web_search',
    user_location: options.userLocation,
    filters: options.filters?.allowedDomains ? { allowed_domains: options.filters.allowedDomains } : undefined,
    search_context_size: options.searchContextSize ?? 'medium',
    external_web_access: options.externalWebAccess,
  });
}

/**
 * The provider searches these vector stores within a turn. Takes the ids (as the OpenAI Agents SDK does, options
 * second) or `{ vectorStoreIds, ...options }`.
 */
export function fileSearchTool(
  stores: string | string[] | (FileSearchToolOptions & { vectorStoreIds: string | string[] }),
  options: FileSearchToolOptions = {},
): HostedTool {
  const { vectorStoreIds, ...rest } =
    typeof stores === 'string' || Array.isArray(stores) ? { vectorStoreIds: stores, ...options } : stores;
  const ids = Array.isArray(vectorStoreIds) ? vectorStoreIds : [vectorStoreIds];
  if (!ids.length || ids.some((id) => typeof id !== 'string' || !id))
    throw new Error('fileSearchTool needs vectorStoreIds: one or more vector store ids, e.g. ["vs_abc123"]');
  return hosted(
    rest.name ?? 'file_search',
    {
      type: 'file_search',
      vector_store_ids: [...ids],
      max_num_results: rest.maxNumResults,
      ranking_options: rest.rankingOptions,
      filters: rest.filters,
    },
    rest.includeSearchResults ? ['file_search_call.results'] : undefined,
  );
}

/** The provider runs code in a container within a turn. */
export function codeInterpreterTool(options: CodeInterpreterToolOptions = {}): HostedTool {
  return hosted(
    options.name ?? 'code_interpreter',
    { type: 'code_interpreter', container: options.container ?? { type: 'auto' } },
    options.includeOutputs ? ['code_interpreter_call.outputs'] : undefined,
  );
}

/** The provider generates an image within a turn (its base64 is kept out of the run's history: see hostedCallItem). */
export function imageGenerationTool(options: ImageGenerationToolOptions = {}): HostedTool {
  return hosted(options.name ?? 'image_generation', {
    type: 'image_generation',
    background: options.background,
    input_fidelity: options.inputFidelity,
    input_image_mask: options.inputImageMask,
    model: options.model,
    moderation: options.moderation,
    output_compression: options.outputCompression,
    output_format: options.outputFormat,
    partial_images: options.partialImages,
    quality: options.quality,
    size: options.size,
  });
}

export const isHostedTool = (t: unknown): t is HostedTool =>
  typeof t === 'object' && t !== null && (t as { type?: unknown }).type === 'hosted_tool';

/** The provider's output items for hosted tools: kept in the conversation as provider items. */
export const HOSTED_CALL_TYPES = [
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
] as const;

/** An image's base64 larger than this is replaced by a placeholder before it reaches history. */
export const IMAGE_RESULT_LIMIT = 1024;

/**
 * A hosted call's output item as the conversation keeps it: as the provider sent it, except an image's base64 result,
 * which becomes a short placeholder (megabytes would go into the run's history with each turn).
 */
export function hostedCallItem(out: Record<string, unknown>): Record<string, unknown> {
  if (out.type !== 'image_generation_call' || typeof out.result !== 'string' || out.result.length <= IMAGE_RESULT_LIMIT)
    return out;
  return { ...out, result: null, result_omitted: `${out.result.length} characters of base64, not kept` };
}

const KINDS = ['web_search', 'web_search_preview', 'file_search', 'code_interpreter', 'image_generation'];

/** An agent's hosted tools, checked (made by the factories above), frozen. */
export function checkHostedTools(agent: string, tools: HostedTool[]): readonly HostedTool[] {
  const names = new Set<string>();
  for (const t of tools) {
    if (typeof t.name !== 'string' || !t.providerData || !KINDS.includes(String(t.providerData.type)))
      throw new Error(
        `agent ${agent}: a hosted tool must come from webSearchTool(), fileSearchTool(), codeInterpreterTool() or imageGenerationTool()`,
      );
    if (names.has(t.name)) throw new Error(`agent ${agent}: two tools are named ${t.name}`);
    names.add(t.name);
  }
  return Object.freeze([...tools]);
}

/** A provider item as the next request sends it back: without what the conversation added (an image's placeholder note). */
export function providerInput(item: Record<string, unknown>): Record<string, unknown> {
  if (!('result_omitted' in item)) return item;
  const { result_omitted: _omitted, ...rest } = item;
  return rest;
}
