// A tool's guardrails and its own failure text, as defineTool takes them: the OpenAI Agents SDK's ToolInputGuardrail
// and ToolOutputGuardrail shapes (`{ name, run }`, or the SDK's definitions with their `type`), plus `ask` on an input
// guardrail, which no SDK has: the call waits for a person. They run in activities (activities/toolGuardrailChecks.ts).

/** What a tool guardrail tells the run to do: go on, answer the model with `message` instead, or fail the run. */
export type ToolGuardrailBehavior =
  { type: 'allow' } | { type: 'rejectContent'; message: string } | { type: 'throwException' };

/** What a tool guardrail returns. `outputInfo` (JSON data) is shown to people and kept in the failure's details. */
export interface ToolGuardrailOutput<B = ToolGuardrailBehavior> {
  behavior: B;
  outputInfo?: unknown;
}

/** What a tool guardrail is given: the call's arguments (parsed), the call as the model made it, the run's context. */
export interface ToolGuardrailData<P> {
  arguments: P;
  toolCall: { callId: string; name: string; arguments: string };
  context: Record<string, unknown>;
  agentName: string;
  runId: string;
}

/**
 * Runs when the call is planned, before anything else decides it. `allow`: as without it; `rejectContent`: the call
 * does not run and the model gets `message`; `throwException`: the run fails (ToolInputGuardrailTripwireTriggered);
 * `ask`: a person decides the call, even when the tool needs no approval, and sees why. A throw asks a person.
 */
export interface ToolInputGuardrail<P = Record<string, unknown>> {
  name: string;
  type?: 'tool_input';
  run: (
    data: ToolGuardrailData<P>,
  ) =>
    | ToolGuardrailOutput<ToolGuardrailBehavior | { type: 'ask' }>
    | Promise<ToolGuardrailOutput<ToolGuardrailBehavior | { type: 'ask' }>>;
}

/**
 * Runs on the tool's result before the model sees it (`output`: what execute returned). `rejectContent`: the model
 * sees `message` instead; `throwException`: the run fails (ToolOutputGuardrailTripwireTriggered). No `ask`: the tool
 * already ran. A throw withholds the output (the model is told).
 */
export interface ToolOutputGuardrail<P = Record<string, unknown>> {
  name: string;
  type?: 'tool_output';
  run: (data: ToolGuardrailData<P> & { output: unknown }) => ToolGuardrailOutput | Promise<ToolGuardrailOutput>;
}

/** A failure of this tool, for its `errorText`: the tool threw, its arguments were invalid, or it ran past `timeout`. */
export interface ToolFailure {
  kind: 'tool_failed' | 'invalid_arguments' | 'timed_out';
  message: string;
  /** What the model sees without errorText (after the agent's toolErrorFormatter). */
  defaultMessage: string;
}

/** The run and call a tool's errorText writes for. */
export interface ToolFailureContext {
  runId: string;
  agentName: string;
  callId: string;
  toolName: string;
  context: Record<string, unknown>;
}

/** What the model sees for this tool's failures; it wins over the agent's toolErrorFormatter. Empty or a throw: the default. */
export type ToolErrorText = (error: ToolFailure, ctx: ToolFailureContext) => string | Promise<string>;

/** The guardrails of a tool, checked at definition: each needs a name and a run function, and sits on its own side. */
export function checkToolGuardrails(tool: string, input: unknown, output: unknown): void {
  for (const [field, list, other] of [
    ['inputGuardrails', input, 'tool_output'],
    ['outputGuardrails', output, 'tool_input'],
  ] as const) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new Error(`tool ${tool}: ${field} must be an array of { name, run }`);
    for (const g of list as Array<Partial<ToolInputGuardrail> & { type?: string }>) {
      if (!g || typeof g.name !== 'string' || !g.name || typeof g.run !== 'function')
        throw new Error(`tool ${tool}: each of ${field} needs a name and a run function`);
      if (g.type === other)
        throw new Error(
          other === 'tool_input'
            ? `tool ${tool}: ${g.name} is a tool input guardrail; an output guardrail cannot ask a person or stop the call: the tool already ran`
            : `tool ${tool}: ${g.name} is a tool output guardrail; put it in outputGuardrails`,
        );
    }
  }
}
