// How an agent (and a run) tunes the model: the OpenAI Agents SDK's model settings. One zod schema, strict (an unknown or
// misspelt setting is refused, not silently dropped), recorded in the run's agent snapshot so a run keeps the
// settings it started with; a run's own settings win over its agent's, key by key. Plain data, no Temporal.
import { z } from 'zod';
import { shareAcrossRuns } from './sharedModules';
import { describeZodError } from './zodErrors';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const modelSettingsSchema = shareAcrossRuns('modelSettings.schema', () =>
  z.strictObject({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** 'auto' (the model decides), 'required' (it must call a tool), 'none' (it may not), or one tool's name. */
    toolChoice: z
      .union([
        z.enum(['auto', 'required', 'none']),
        z.string().regex(TOOL_NAME, { error: 'must be auto, required, none or a tool name' }),
      ])
      .optional(),
    parallelToolCalls: z.boolean().optional(),
    reasoningEffort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
    /** Whether the provider keeps the response (Responses API `store`; default false: nothing kept). */
    store: z.boolean().optional(),
    /** Provider-specific request fields, sent as they are (e.g. `{ seed: 7 }`, `{ service_tier: 'flex' }`). */
    providerData: z.record(z.string(), z.json()).optional(),
  }),
);
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/** The run's settings over the agent's, key by key (providerData merged the same way); undefined when neither has any. */
export function mergeModelSettings(
  agent: ModelSettings | undefined,
  run: ModelSettings | undefined,
): ModelSettings | undefined {
  if (!agent && !run) return undefined;
  const providerData =
    agent?.providerData || run?.providerData ? { ...agent?.providerData, ...run?.providerData } : undefined;
  return { ...agent, ...run, ...(providerData ? { providerData } : {}) };
}

/** Checks settings where they are defined; `toolNames`, when known, are what toolChoice may name. One line on failure. */
export function checkModelSettings(
  owner: string,
  raw: unknown,
  toolNames?: readonly string[],
): { settings: ModelSettings } | { problem: string } {
  const parsed = modelSettingsSchema.safeParse(raw);
  if (!parsed.success) return { problem: `${owner}: modelSettings: ${describeZodError(parsed.error)}` };
  const choice = parsed.data.toolChoice;
  if (toolNames && choice && !['auto', 'required', 'none'].includes(choice) && !toolNames.includes(choice))
    return {
      problem: `${owner}: modelSettings: toolChoice "${choice}" is not one of its tools (${toolNames.join(', ') || 'none'})`,
    };
  return { settings: parsed.data };
}
