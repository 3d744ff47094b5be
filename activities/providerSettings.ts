// A run's model settings (domain/modelSettings.ts) as each API names them in the request body. Fields that only
// make sense with tools are left out of a turn that offers none; toolChoice must name one of the turn's tools.
import { ApplicationFailure } from '@temporalio/common';
import type { ModelSettings } from '../domain/modelSettings';

export const INVALID_MODEL_SETTINGS = 'InvalidModelSettings';

function namedTool(s: ModelSettings, toolNames: readonly string[]): string | undefined {
  const choice = s.toolChoice;
  if (!choice || choice === 'auto' || choice === 'required' || choice === 'none') return undefined;
  if (!toolNames.includes(choice))
    throw ApplicationFailure.create({ type: INVALID_MODEL_SETTINGS, nonRetryable: true, message: `modelSettings.toolChoice names "${choice}", which is not one of the agent's tools (${toolNames.join(', ') || 'none'})` });
  return choice;
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Responses API body fields; `store` is false unless the settings say otherwise. providerData goes in first (ours win). */
export function responsesSettings(s: ModelSettings | undefined, toolNames: readonly string[]): Record<string, unknown> {
  if (!s) return { store: false };
  const name = namedTool(s, toolNames);
  const tools = toolNames.length > 0;
  return {
    ...s.providerData,
    ...defined({
      temperature: s.temperature,
      top_p: s.topP,
      max_output_tokens: s.maxOutputTokens,
      tool_choice: tools ? (name ? { type: 'function', name } : s.toolChoice) : undefined,
      parallel_tool_calls: tools ? s.parallelToolCalls : undefined,
      reasoning: s.reasoningEffort ? { effort: s.reasoningEffort } : undefined,
    }),
    store: s.store ?? false,
  };
}

/** Chat Completions body fields. */
export function chatSettings(s: ModelSettings | undefined, toolNames: readonly string[]): Record<string, unknown> {
  if (!s) return {};
  const name = namedTool(s, toolNames);
  const tools = toolNames.length > 0;
  return {
    ...s.providerData,
    ...defined({
      temperature: s.temperature,
      top_p: s.topP,
      max_completion_tokens: s.maxOutputTokens,
      tool_choice: tools ? (name ? { type: 'function', function: { name } } : s.toolChoice) : undefined,
      parallel_tool_calls: tools ? s.parallelToolCalls : undefined,
      reasoning_effort: s.reasoningEffort,
      store: s.store,
    }),
  };
}
