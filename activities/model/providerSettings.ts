// A run's model settings (contract/modelSettings.ts) as each API names them in the request body. Fields that only
// make sense with tools are left out of a turn that offers none; toolChoice must name one of the turn's tools.
import { ApplicationFailure } from '@temporalio/common';
import { Failure } from '../../contract/failureTypes';
import type { ModelSettings } from '../../contract/modelSettings';
import { definedFields } from '../../core/definedFields';

function namedTool(s: ModelSettings, toolNames: readonly string[]): string | undefined {
  const choice = s.toolChoice;
  if (!choice || choice === 'auto' || choice === 'required' || choice === 'none') return undefined;
  if (!toolNames.includes(choice))
    throw ApplicationFailure.create({
      type: Failure.InvalidModelSettings,
      nonRetryable: true,
      message: `modelSettings.toolChoice names "${choice}", which is not one of the agent's tools (${toolNames.join(', ') || 'none'})`,
    });
  return choice;
}

/** tool_choice and parallel_tool_calls, present only when the turn offers tools; a named tool in the API's shape. */
function toolFields(
  s: ModelSettings,
  toolNames: readonly string[],
  named: (name: string) => unknown,
): Record<string, unknown> {
  if (toolNames.length === 0) return {};
  const name = namedTool(s, toolNames);
  return { tool_choice: name ? named(name) : s.toolChoice, parallel_tool_calls: s.parallelToolCalls };
}

/** Responses API body fields; `store` is false unless the settings say otherwise. providerData goes in first (ours win). */
export function responsesSettings(s: ModelSettings | undefined, toolNames: readonly string[]): Record<string, unknown> {
  if (!s) return { store: false };
  const fields = {
    temperature: s.temperature,
    top_p: s.topP,
    max_output_tokens: s.maxOutputTokens,
    ...toolFields(s, toolNames, (name) => ({ type: 'function', name })),
    reasoning: s.reasoningEffort ? { effort: s.reasoningEffort } : undefined,
  };
  return { ...s.providerData, ...definedFields(fields), store: s.store ?? false };
}

/** Chat Completions body fields. */
export function chatSettings(s: ModelSettings | undefined, toolNames: readonly string[]): Record<string, unknown> {
  if (!s) return {};
  const fields = {
    temperature: s.temperature,
    top_p: s.topP,
    max_completion_tokens: s.maxOutputTokens,
    ...toolFields(s, toolNames, (name) => ({ type: 'function', function: { name } })),
    reasoning_effort: s.reasoningEffort,
    store: s.store,
  };
  return { ...s.providerData, ...definedFields(fields) };
}

/** The name the structured-output format carries in requests. */
export const OUTPUT_FORMAT_NAME = 'final_output';
