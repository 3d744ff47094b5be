// A tool's guardrails, run in activities: its input guardrails when a call is planned (callPlanning.ts), its output
// guardrails on the result before the model sees it (runTool). They run in order; the first that does not allow wins.
// Each is asked as every predicate is (predicateAnswers.ts): one that throws, takes too long or answers no behavior
// fails closed: an input guardrail asks a person (the call says why), an output guardrail withholds the output. What
// they return is recorded (history, the pending call), so outputInfo is kept as JSON data.
import { ApplicationFailure } from '@temporalio/common';
import type { Tool } from '../agents/defineTool';
import type { ToolGuardrailData } from '../agents/toolGuardrails';
import { Failure } from '../contract/failureTypes';
import type { GuardrailAsk } from '../contract/pendingCall';
import { shorten } from '../core/approvals/callSummary';
import { jsonData } from '../core/jsonData';
import { askPredicate } from './predicateAnswers';

/** What the tool's input guardrails decided for a call; undefined: every one allowed it. */
export type InputVerdict =
  | { type: 'rejectContent'; message: string }
  | { type: 'ask'; guardrail: GuardrailAsk; askedBecause?: string }
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

type Answer = { behavior: { type: string; message?: unknown }; outputInfo?: unknown };

/** What a tool guardrail may answer: a behavior its stage knows (rejectContent with its message). */
const behaviors = (stage: 'input' | 'output', limitMs: number) => ({
  expected: `{ behavior: { type: ${stage === 'input' ? "'allow', 'rejectContent', 'throwException' or 'ask'" : "'allow', 'rejectContent' or 'throwException'"} } }`,
  limitMs,
  accepts: (answer: unknown): boolean => {
    const b = (answer as Partial<Answer> | null | undefined)?.behavior;
    if (b?.type === 'rejectContent') return typeof b.message === 'string';
    return b?.type === 'allow' || b?.type === 'throwException' || (stage === 'input' && b?.type === 'ask');
  },
});

/** The tool's input guardrails on a planned call (in the model-turn activity), each within `limitMs`. */
export async function checkToolInput(
  tool: Tool,
  data: ToolGuardrailData<unknown>,
  limitMs: number,
): Promise<InputVerdict | undefined> {
  for (const g of tool.inputGuardrails ?? []) {
    const what = `tool input guardrail ${g.name}`;
    const asked = await askPredicate({ what, ...behaviors('input', limitMs) }, () => g.run(data as never));
    const answer = 'why' in asked ? undefined : (asked.answer as Answer);
    const type = answer?.behavior.type;
    if (type === 'allow') continue;
    const outputInfo = jsonData('why' in asked ? { error: asked.why } : answer?.outputInfo);
    if (type === 'rejectContent') return { type, message: answer!.behavior.message as string };
    if (type === 'throwException') return { type, name: g.name, outputInfo };
    // 'ask', or no answer it may give: a person decides, and sees which guardrail and why.
    const guardrail: GuardrailAsk = {
      name: g.name,
      stage: 'tool_input',
      checked: shorten(data.toolCall.arguments, 300),
    };
    return {
      type: 'ask',
      guardrail: outputInfo === undefined ? guardrail : { ...guardrail, outputInfo },
      ...('why' in asked ? { askedBecause: asked.why } : {}),
    };
  }
  return undefined;
}

/** The tool's output guardrails on a result (in runTool), each within `limitMs`: the text the model sees; a tripwire throws. */
export async function checkToolOutput(
  tool: Tool,
  data: ToolGuardrailData<unknown>,
  output: unknown,
  text: string,
  limitMs: number,
): Promise<string> {
  for (const g of tool.outputGuardrails ?? []) {
    const what = `tool output guardrail ${g.name}`;
    const outcome = `the output of ${tool.name} is withheld`;
    const rule = { what, outcome, ...behaviors('output', limitMs) };
    // No answer it may give (ask among them: the tool already ran): the output is withheld, fail closed.
    const asked = await askPredicate(rule, () => g.run({ ...data, output } as never));
    if ('why' in asked) return `${asked.why}.`;
    const answer = asked.answer as Answer;
    if (answer.behavior.type === 'rejectContent') return answer.behavior.message as string;
    if (answer.behavior.type === 'throwException') throw tripwire('output', g.name, tool.name, answer.outputInfo);
  }
  return text;
}
