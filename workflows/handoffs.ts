// Handoffs: a tool that hands the conversation to another agent. No activity runs for the call itself: the model
// hears that the conversation moves, and once the turn is answered the run describes the new agent and carries on
// with it (one handoff per turn; the run's handoffs are in its view).
import { log } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { describeAgent } from './activityProxies';

export class Handoffs {
  constructor(
    private readonly state: AgentRunState,
    private readonly publish: () => void,
    private readonly now: () => string,
  ) {}

  /** The handoff call's answer; the move itself waits for the end of the turn. */
  request(to: string, callId: string): string {
    if (!this.state.requestHandoff(to, callId))
      return `Not transferred: the conversation is already moving to ${this.state.nextAgent!.to}.`;
    return `Transferred to ${to}. It continues the conversation.`;
  }

  /** After a turn: the requested handoff, if any, takes effect. */
  async complete(): Promise<void> {
    const next = this.state.nextAgent;
    if (!next) return;
    const from = this.state.agentRef().name;
    const agent = await describeAgent({ name: next.to });
    this.state.handedOff(agent, this.now());
    log.info('handoff', { from, to: agent.name, version: agent.version });
    this.publish();
  }
}
