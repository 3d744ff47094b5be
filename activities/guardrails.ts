// runGuardrails: an agent's input or output guardrails, run on the worker (their code never runs in the workflow).
// The agent is looked up by name and version in the worker's registry, like its tools; every guardrail of the stage
// runs at once, and each answers whether its tripwire triggered. For a tripped guardrail whose onTripwire is 'ask',
// the activity also decides the terms its pending item waits on (the agent's and the run's policies, as a call's
// are planned), so the workflow books it without looking at a policy.
import type { Agent } from '../agents/defineAgent';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import type { WorkerSettings } from '../config/workerSettings';
import type { AgentRef, WaitTerms } from '../core/approvals/plannedCall';
import { waitTerms } from './callPlanning';
import { jsonData } from '../core/jsonData';
import { guardrailItem } from '../core/approvals/itemIds';

export interface GuardrailRequest {
  /** The run's workflow id. */
  workflowId: string;
  agent: AgentRef;
  stage: 'input' | 'output';
  /** What is checked: the user's words (input), or the final output as the run would complete with it (output). */
  checked: string;
  /** The turn it is checked in: names the pending item (core/approvals/itemIds.ts). */
  turn: number;
  context: Record<string, unknown>;
  /** The run's own approval policy (wins over the agent's), for the terms an 'ask' waits on. */
  policy?: ApprovalPolicy;
}

export interface GuardrailOutcome {
  name: string;
  tripwireTriggered: boolean;
  /** As the guardrail returned it, as JSON data. */
  outputInfo?: unknown;
  onTripwire: 'fail' | 'ask';
  /** A tripped 'ask': the terms its pending item waits on. */
  wait?: WaitTerms;
}

export interface GuardrailReport {
  results: GuardrailOutcome[];
  /** Results recorded before each 'ask' carried its own terms: one set for all, planned for no item in particular. */
  wait?: WaitTerms;
}

/** The final output as an output guardrail gets it: with outputType, the parsed JSON; else the text. */
function agentOutputOf(agent: Agent, checked: string): unknown {
  if (!agent.outputType) return checked;
  try {
    return JSON.parse(checked) as unknown;
  } catch {
    return checked;
  }
}

export function createGuardrailActivities(agentOf: (ref: AgentRef) => Agent, settings: WorkerSettings) {
  return {
    async runGuardrails(req: GuardrailRequest): Promise<GuardrailReport> {
      const agent = agentOf(req.agent);
      const list = (req.stage === 'input' ? agent.inputGuardrails : agent.outputGuardrails) ?? [];
      const results = await Promise.all(
        list.map(async (g): Promise<GuardrailOutcome> => {
          const args =
            req.stage === 'input'
              ? { input: req.checked, context: req.context, agent }
              : { agentOutput: agentOutputOf(agent, req.checked), context: req.context, agent };
          const out = await (g.execute as (a: typeof args) => unknown)(args);
          const { tripwireTriggered, outputInfo } = (out ?? {}) as {
            tripwireTriggered?: unknown;
            outputInfo?: unknown;
          };
          if (typeof tripwireTriggered !== 'boolean')
            throw new Error(
              `guardrail ${g.name} of agent ${agent.name} returned ${JSON.stringify(out) ?? 'nothing'}: it must return { tripwireTriggered: boolean, outputInfo? }`,
            );
          const info = jsonData(outputInfo);
          return {
            name: g.name,
            tripwireTriggered,
            ...(info !== undefined ? { outputInfo: info } : {}),
            onTripwire: g.onTripwire ?? 'fail',
          };
        }),
      );
      // Each tripped 'ask' gets the terms its item waits on, planned for the item as the workflow books it.
      const planning = { workflowId: req.workflowId, context: req.context, policy: req.policy, settings };
      for (const r of results)
        if (r.tripwireTriggered && r.onTripwire === 'ask')
          r.wait = await waitTerms(
            agent,
            undefined,
            'approval',
            guardrailItem(r.name, req.stage, req.checked, req.turn),
            planning,
          );
      return { results };
    },
  };
}
