// The parts of an Agents SDK agent other than its tools, onto AgentConfig: instructions (a function is called in the
// model activity with a RunContext over the run's context), model and modelSettings, outputType, toolUseBehavior,
// input and output guardrails, and handoffs (Agents or handoff() objects, with their tool name, description, input
// filter and onHandoff). What Countersign cannot honour is refused in one line naming the agent and the field.
import type { AgentConfig, HandoffSpec } from '../../agents/agentConfig';
import type {
  InputGuardrail,
  InputGuardrailArgs,
  OutputGuardrail,
  OutputGuardrailArgs,
} from '../../agents/agentGuardrails';
import type { ModelSettings } from '../../contract/modelSettings';
import { refuse } from './unmappable';
import { fromSdkItems, sdkInputItems, toSdkItems } from './sdkItems';
import { sdkRunContext, staticFlag } from './sdkRuntime';
import { type Obj, type Fn, isObj, isFn } from '../shared/sdkShapes';

export function instructionsOf(name: string, sdkAgent: Obj): AgentConfig['instructions'] {
  const given = sdkAgent.instructions;
  if (given === undefined || typeof given === 'string') return given ?? '';
  if (!isFn(given)) refuse(name, 'instructions', 'must be a string or a function (runContext, agent) => string');
  const fn = given as (rc: unknown, agent: Obj) => unknown;
  return async (ctx) => (await fn(sdkRunContext(ctx.context), sdkAgent)) as string;
}

export function modelOf(name: string, model: unknown): string | undefined {
  if (model === undefined || model === '') return undefined;
  if (typeof model === 'string') return model;
  return refuse(
    name,
    'model',
    "is a Model object, which Countersign cannot call from its model activity: give the model's name (a string) and set the provider with OPENAI_BASE_URL and COUNTERSIGN_MODEL_API (docs/operations.md)",
  );
}

/** The SDK's model settings Countersign has, by the name each has here; `reasoning` is read apart (its effort). */
const SETTINGS: Record<string, keyof ModelSettings> = {
  temperature: 'temperature',
  topP: 'topP',
  maxTokens: 'maxOutputTokens',
  toolChoice: 'toolChoice',
  parallelToolCalls: 'parallelToolCalls',
  store: 'store',
  providerData: 'providerData',
};

/**
 * The SDK's modelSettings (only when the agent set them: otherwise the SDK's defaults for its own default model).
 * Values are checked by defineAgent against the one model-settings schema (contract/modelSettings.ts).
 */
export function modelSettingsOf(name: string, sdkAgent: Obj): ModelSettings | undefined {
  if (sdkAgent._modelSettingsExplicitlyConfigured === false) return undefined;
  const s = sdkAgent.modelSettings;
  if (!isObj(s) || Object.keys(s).length === 0) return undefined;
  const out: Obj = {};
  for (const [key, value] of Object.entries(s)) {
    if (value === undefined || value === null) continue;
    if (key === 'reasoning' && isObj(value)) {
      for (const [part, v] of Object.entries(value))
        if (part !== 'effort' && v !== undefined && v !== null)
          refuse(name, `modelSettings.reasoning.${part}`, 'has no Countersign counterpart: remove it');
      if (value.effort !== undefined && value.effort !== null) out.reasoningEffort = value.effort;
    } else if (Object.hasOwn(SETTINGS, key)) out[SETTINGS[key]!] = value;
    else
      refuse(
        name,
        `modelSettings.${key}`,
        'has no Countersign counterpart: remove it, or send it with modelSettings.providerData as the provider spells it',
      );
  }
  return Object.keys(out).length ? (out as ModelSettings) : undefined;
}

export function outputTypeOf(name: string, outputType: unknown): Pick<AgentConfig, 'outputType'> {
  if (outputType === undefined || outputType === 'text') return {};
  if (isObj(outputType) && isObj(outputType._zod) && isObj((outputType._zod as Obj).def)) {
    if (((outputType._zod as Obj).def as Obj).type !== 'object')
      refuse(name, 'outputType', 'must be a zod object schema here, e.g. z.object({ answer: z.string() })');
    return { outputType: outputType as never };
  }
  return refuse(
    name,
    'outputType',
    'is not a zod (4) object schema, which is what Countersign checks answers with: give z.object({ … })',
  );
}

export function toolUseBehaviorOf(name: string, behavior: unknown): Pick<AgentConfig, 'toolUseBehavior'> {
  if (behavior === undefined || behavior === 'run_llm_again') return {};
  if (behavior === 'stop_on_first_tool') return { toolUseBehavior: behavior };
  if (isObj(behavior) && Array.isArray(behavior.stopAtToolNames))
    return { toolUseBehavior: { stopAtToolNames: behavior.stopAtToolNames.map(String) } };
  return refuse(
    name,
    'toolUseBehavior',
    "is a function, which Countersign cannot run between a tool's result and the workflow's next step: use 'stop_on_first_tool' or { stopAtToolNames }",
  );
}

/** Guardrail names as Countersign takes them (letters, digits, _ and -). */
const guardrailName = (n: unknown) =>
  String(n ?? '')
    .replace(/[^a-zA-Z0-9_-]/g, '_')
    .slice(0, 64);

export function guardrailsOf(name: string, sdkAgent: Obj): Pick<AgentConfig, 'inputGuardrails' | 'outputGuardrails'> {
  const read = (field: string) => {
    const list = sdkAgent[field];
    if (list === undefined) return [];
    if (!Array.isArray(list)) refuse(name, field, 'must be an array of guardrails');
    return list.map((g: Obj) => {
      if (!isObj(g) || !isFn(g.execute)) refuse(name, field, 'each needs { name, execute }: fix the guardrail');
      return g as Obj & { execute: (args: Obj) => unknown };
    });
  };
  // Each SDK guardrail gets the SDK agent and a RunContext over the run's context, plus what its stage checks.
  const wrap =
    <A extends { context: Record<string, unknown> }>(stage: (args: A) => Obj) =>
    (g: Obj & { execute: (args: Obj) => unknown }) => ({
      name: guardrailName(g.name),
      execute: async (args: A) =>
        (await g.execute({ agent: sdkAgent, context: sdkRunContext(args.context), ...stage(args) })) as never,
    });
  const input: InputGuardrail[] = read('inputGuardrails').map(
    wrap((args: InputGuardrailArgs) => ({ input: args.input })),
  );
  const output: OutputGuardrail[] = read('outputGuardrails').map(
    wrap((args: OutputGuardrailArgs) => ({ agentOutput: args.agentOutput, details: {} })),
  );
  return {
    ...(input.length ? { inputGuardrails: input } : {}),
    ...(output.length ? { outputGuardrails: output } : {}),
  };
}

/** A handoff() object (duck-typed: another SDK copy's Handoff is not this one's class). */
export const isSdkHandoff = (h: unknown): h is Obj =>
  isObj(h) && isFn(h.onInvokeHandoff) && isObj(h.agent) && typeof h.toolName === 'string';

function inputFilterOf(f: Fn): HandoffSpec['inputFilter'] {
  const filter = f as (data: Obj) => unknown;
  return async (data) => {
    const out = (await filter({
      inputHistory: toSdkItems(data.inputHistory),
      preHandoffItems: [],
      newItems: [],
      runContext: sdkRunContext(data.context),
    })) as Obj;
    if (!isObj(out)) throw new Error('the handoff inputFilter returned no HandoffInputData');
    const list = (v: unknown) => (Array.isArray(v) ? v : []);
    return [
      ...sdkInputItems(out.inputHistory),
      ...fromSdkItems(list(out.preHandoffItems)),
      ...fromSdkItems(list(out.newItems)),
    ];
  };
}

/** One entry of the SDK agent's `handoffs` as Countersign's HandoffSpec; `target` is the agent it hands to. */
export function handoffOf(name: string, h: unknown): { spec: HandoffSpec; target: Obj } {
  if (!isSdkHandoff(h)) {
    if (!isObj(h) || typeof h.name !== 'string') refuse(name, 'handoffs', 'must list Agents or handoff() objects');
    return {
      target: h,
      spec: {
        agent: h.name,
        toolName: `transfer_to_${h.name.replace(/[^a-zA-Z0-9]/g, '_')}`.slice(0, 64),
        description: `Handoff to the ${h.name} agent to handle the request. ${String(h.handoffDescription ?? '')}`,
      },
    };
  }
  const target = h.agent as Obj;
  const field = `handoffs ("${String(h.toolName)}")`;
  const schema = h.inputJsonSchema as Obj | undefined;
  if (isObj(schema?.properties) && Object.keys(schema.properties).length > 0)
    refuse(
      name,
      `${field} inputType`,
      "cannot map: a Countersign handoff's tool takes only a reason; remove inputType (read what you need in onHandoff from the run's context)",
    );
  if (typeof h.isEnabled === 'function' && staticFlag(h.isEnabled) === undefined)
    refuse(
      name,
      `${field} isEnabled`,
      'is a function, which Countersign cannot ask before each turn (every handoff is offered): remove it, or list the handoff only on agents that may use it',
    );
  const invoke = h.onInvokeHandoff as (rc: unknown, args: string) => unknown;
  return {
    target,
    spec: {
      agent: String(target.name),
      toolName: String(h.toolName),
      description: String(h.toolDescription ?? ''),
      ...(isFn(h.inputFilter) ? { inputFilter: inputFilterOf(h.inputFilter) } : {}),
      onHandoff: async (ctx) => {
        await invoke(sdkRunContext(ctx.context), '');
      },
    },
  };
}
