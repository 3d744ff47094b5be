// Temporal's OpenAI Agents integration, used as its README and human-approval sample document it: run the agent;
// on an interruption wait for the `approve` signal, then continue as new with the serialised RunState; the new run
// approves the interruptions and finishes. The tools run as activities, as Countersign's do.
import { RunState } from '@openai/agents-core';
import { TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import { condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { type EmailEffects, emailAgent } from './emailAgent';

const effects = proxyActivities<EmailEffects>({ startToCloseTimeout: '1 minute' });
export const approveSignal = defineSignal('approve');
export const waitingQuery = defineQuery<boolean>('waitingForApproval');

export async function temporalAgentsApproval(input: { message: string; resumeFromRunState?: string }): Promise<string> {
  const agent = emailAgent(effects);
  const runner = new TemporalOpenAIRunner();
  if (input.resumeFromRunState !== undefined) {
    const state = await RunState.fromString(agent, input.resumeFromRunState);
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    return (await runner.run(agent, state)).finalOutput ?? '';
  }
  let approved = false;
  let waiting = false;
  setHandler(approveSignal, () => void (approved = true));
  setHandler(waitingQuery, () => waiting);
  const result = await runner.run(agent, input.message);
  if (result.interruptions.length === 0) return result.finalOutput ?? '';
  waiting = true;
  await condition(() => approved);
  return continueAsNew<typeof temporalAgentsApproval>({
    message: input.message,
    resumeFromRunState: result.state.toString(),
  });
}
