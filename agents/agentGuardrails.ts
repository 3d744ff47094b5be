// An agent's input and output guardrails, in the OpenAI Agents SDK's shape (InputGuardrail, OutputGuardrail,
// GuardrailFunctionOutput), plus `onTripwire`: what a tripped guardrail does, fail the run (the default, as in the SDK)
// or ask a person (a pending item of kind `guardrail`). Their code runs in the runGuardrails activity
// (activities/guardrails.ts), never in the workflow; the snapshot records only their names and onTripwire.
import type { GuardrailSnapshot } from '../core/run/agentSnapshot';
import type { Agent } from './agentConfig';

/** What a guardrail's execute returns: whether its tripwire triggered, and anything it wants to say about why. */
export interface GuardrailFunctionOutput {
  tripwireTriggered: boolean;
  /** JSON data: shown to the person asked (`ask`), and in the failure's details (`fail`). */
  outputInfo?: unknown;
}

/** 'fail' (default): the run fails with the tripwire failure type. 'ask': a person decides; approved, the run goes on. */
export type OnTripwire = 'fail' | 'ask';

/** What an input guardrail checks: the run's input, or messages added with add-input (the user's words as text). */
export interface InputGuardrailArgs {
  input: string;
  /** The run's plain context (start's `context`). */
  context: Record<string, unknown>;
  agent: Agent;
}

/** What an output guardrail checks: the final output (with outputType, the parsed JSON; else the text). */
export interface OutputGuardrailArgs {
  agentOutput: unknown;
  context: Record<string, unknown>;
  agent: Agent;
}

export interface InputGuardrail {
  name: string;
  execute: (args: InputGuardrailArgs) => GuardrailFunctionOutput | Promise<GuardrailFunctionOutput>;
  onTripwire?: OnTripwire;
}

export interface OutputGuardrail {
  name: string;
  execute: (args: OutputGuardrailArgs) => GuardrailFunctionOutput | Promise<GuardrailFunctionOutput>;
  onTripwire?: OnTripwire;
}

/** Checks an agent's guardrails at definition: names present and unique across both lists, execute a function. */
export function checkGuardrails(
  agent: string,
  input: readonly InputGuardrail[] = [],
  output: readonly OutputGuardrail[] = [],
): GuardrailSnapshot[] {
  const seen = new Set<string>();
  const stages: Array<['input' | 'output', readonly (InputGuardrail | OutputGuardrail)[]]> = [
    ['input', input],
    ['output', output],
  ];
  return stages.flatMap(([stage, list]) => {
    if (!Array.isArray(list)) throw new Error(`agent ${agent}: ${stage}Guardrails must be an array of guardrails`);
    return list.map((g) => {
      const name = g?.name;
      if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name))
        throw new Error(
          `agent ${agent}: each of ${stage}Guardrails needs a name of letters, digits, _ or - (at most 64), e.g. "no_secrets"; got ${JSON.stringify(name)}`,
        );
      if (seen.has(name)) throw new Error(`agent ${agent}: two guardrails are named ${name}; give each its own name`);
      seen.add(name);
      if (typeof g.execute !== 'function')
        throw new Error(`agent ${agent}: guardrail ${name} needs execute: async ({ … }) => ({ tripwireTriggered })`);
      const onTripwire = g.onTripwire ?? 'fail';
      if (onTripwire !== 'fail' && onTripwire !== 'ask')
        throw new Error(
          `agent ${agent}: guardrail ${name} has onTripwire ${JSON.stringify(onTripwire)}: use 'fail' or 'ask'`,
        );
      return { name, stage, onTripwire };
    });
  });
}
