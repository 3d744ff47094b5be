// Handoffs: a tool that hands the conversation to another agent. No activity runs for the call itself: the model
// hears that the conversation moves, and once the turn is answered the run describes the new agent and carries on
// with it (one handoff per turn; the run's handoffs are in its view). A handoff with an input filter records a mark
// in the run's handoffs, and each later model turn sends the marks, so the receiving agent's model gets the filtered
// conversation while the run keeps (shows, audits) the whole of it (core/run/handoffView.ts). onHandoff and a function
// filter are user code: they run in the handoffStarted activity when the handoff happens.
import { log, workflowInfo } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import type { ToolSnapshot } from '../core/run/agentSnapshot';
import { type HandoffMark, viewMarks } from '../core/run/handoffView';
import { describeAgent, handoffStarted, withAgent } from './activityProxies';

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
    const tool = this.handoffTool(next.callId);
    // Only a handoff whose snapshot has a filter or onHandoff takes this path (runs described before have neither).
    const mark = tool?.handoffInput || tool?.onHandoff ? await this.started(tool, next) : undefined;
    // The run's context goes along (MCP toolFilter functions read it) only when it has one: the same command either way.
    const context = this.state.input.context;
    const agent = await describeAgent({
      name: next.to,
      ...(context && Object.keys(context).length ? { context } : {}),
    });
    this.state.handedOff(agent, this.now(), mark);
    log.info('handoff', { from, to: agent.name, version: agent.version });
    this.publish();
  }

  /** What the model turn sends of the run's filtered handoffs: the marks the activity applies (none: nothing sent). */
  view(): { view: HandoffMark[] } | Record<string, never> {
    const marks = this.state.handoffs.length ? viewMarks(this.state.handoffs) : [];
    return marks.length ? { view: marks } : {};
  }

  /** The handing agent's tool for the handoff call (its function call is in the conversation). */
  private handoffTool(callId: string): (ToolSnapshot & { arguments: string }) | undefined {
    const items = this.state.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i]!;
      if (item.type !== 'function_call' || item.callId !== callId) continue;
      const tool = this.state.agent?.tools.find((t) => t.name === item.name);
      return tool && { ...tool, arguments: item.arguments };
    }
    return undefined;
  }

  /** onHandoff and a function filter run in an activity; the mark says what the receiving agent's model is sent. */
  private async started(
    tool: ToolSnapshot & { arguments: string },
    next: { to: string; callId: string },
  ): Promise<HandoffMark | undefined> {
    const s = this.state;
    const at = s.items.length;
    const filter = tool.handoffInput;
    const func = filter === 'function';
    let items: HandoffMark['items'];
    if (tool.onHandoff || func) {
      const { transcript } = s;
      const conversation = func
        ? {
            ...(transcript ? { transcript } : {}),
            items: s.items.slice(transcript?.count ?? 0),
            ...this.view(),
          }
        : {};
      const result = await withAgent(s, this.publish, () =>
        handoffStarted({
          runId: workflowInfo().workflowId,
          agent: s.agentRef(),
          toolName: tool.name,
          toAgent: next.to,
          arguments: tool.arguments,
          context: s.input.context ?? {},
          ...conversation,
        }),
      );
      items = result.items;
    }
    if (!filter) return undefined;
    return func ? { at, filter, items: items ?? [] } : { at, filter };
  }
}
