// A tool's guardrails, run in activities: its input guardrails when a call is planned (callPlanning.ts), its output
// guardrails on the result before the model sees it (runTool). They run in order; the first that does not allow wins.
// A guardrail that throws or answers nonsense fails closed: an input guardrail asks a person, an output guardrail
// withholds the output. What they return is recorded (history, the pending call), so outputInfo is kept as JSON data.
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Tool } from '../agents/defineTool';
import type { ToolGuardrailData } from '../agents/toolGuardrails';
import { Failure } from '../contract/failureTypes';
import type { GuardrailAsk } from '../contract/pendingCall';
import { shorten } from '../core/approvals/callSummary';
import { jsonData } from '../core/jsonData';

/** What the tool's input guardrails decided for a call; undefined: every one allowed it. */
export type InputVerdict =
  | { type: 'rejectContent'; message: string }
  | { type: 'ask'; guardrail: GuardrailAsk }
  | { type: 'throwException'; name: string; outputInfo?: unknown };

/** The run fails: a tool guardrail answered throwException (details: { guardrail, tool, outputInfo }). */
export function tripwire(stage: 'input' | 'output', guardrail: string, tool: string, outputInfo: unknown): Error {
  const type =
    stage === 'input' ? Failure.ToolInputGuardrailTripwireTriggered : Failure.ToolOutputGuardrailTripwireTriggered;
  return ApplicationFailure.create({
    type,
    message: `tool ${stage} guardrail ${guardrail} tripped on a call of ${tool}`,
    nonRetryable: true,
    details: [{ guardrail, tool, outputInfo: jsonData(outputInfo) }],
  });
}

type Answer = { behavior?: { type?: unknown; message?: unknown }; outputInfo?: unknown } | undefined;

async function ask<T>(run: () => T | Promise<T>, what: string): Promise<T | { error: string }> {
  try {
    return await run();
  } catch (err) {
    log.warn(`${what} threw; failing closed`, { error: String(err) });
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** The tool's input guardrails on a planned call (in the model-turn activity). */
export async function checkToolInput(tool: Tool, data: ToolGuardrailData<unknown>): Promise<InputVerdict | undefined> {
  for (const g of tool.inputGuardrails ?? []) {
    const answer = (await ask(() => g.run(data as never), `tool input guardrail ${g.name}`)) as Answer & {
      error?: string;
    };
    const type = answer?.behavior?.type;
    if (type === 'allow') continue;
    const outputInfo = jsonData(answer && 'error' in answer ? { error: answer.error } : answer?.outputInfo);
    if (type === 'rejectContent' && typeof answer?.behavior?.message === 'string')
      return { type, message: answer.behavior.message };
    if (type === 'throwException') return { type, name: g.name, outputInfo };
    // 'ask', a throw, or an answer that is none of these: a person decides, and sees which guardrail and why.
    const guardrail: GuardrailAsk = {
      name: g.name,
      stage: 'tool_input',
      checked: shorten(data.toolCall.arguments, 300),
    };
    return { type: 'ask', guardrail: outputInfo === undefined ? guardrail : { ...guardrail, outputInfo } };
  }
  return undefined;
}

/** The tool's output guardrails on a result (in runTool): the text the model sees; a tripwire throws. */
export async function checkToolOutput(
  tool: Tool,
  data: ToolGuardrailData<unknown>,
  output: unknown,
  text: string,
): Promise<string> {
  for (const g of tool.outputGuardrails ?? []) {
    const answer = (await ask(() => g.run({ ...data, output } as never), `tool output guardrail ${g.name}`)) as Answer;
    const type = answer?.behavior?.type;
    if (type === 'allow') continue;
    if (type === 'rejectContent' && typeof answer?.behavior?.message === 'string') return answer.behavior.message;
    if (type === 'throwException') throw tripwire('output', g.name, tool.name, answer?.outputInfo);
    // A throw, or an answer it cannot give (ask: the tool already ran): the output is withheld, fail closed.
    const why = answer && 'error' in answer ? `it failed: ${String(answer.error)}` : 'it gave no allowed answer';
    return `The output of ${tool.name} was withheld by its output guardrail ${g.name} (${why}).`;
  }
  return text;
}
