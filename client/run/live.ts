// Live approvals in the shape of the OpenAI Agents SDK's realtime session: follow a run, hear `tool_approval_required` as calls
// start to wait, and answer them with approveToolCall / rejectToolCall (the same validated `decide` update as
// everything else). Events are the run's durable events; 'event' carries every one of them.
import { EventEmitter } from 'node:events';
import type { RunEvent } from '../../contract/runEvents';
import type { PendingApproval } from '../../contract/runViews';
import type { Runner } from './runner';
import { buildDecision } from '../approvals/decisionBuilder';

/** The SDK's event fields, taken from the pending call, with its run and the whole pending call. */
export interface ToolApprovalRequired extends Pick<
  PendingApproval,
  'callId' | 'toolName' | 'arguments' | 'agentName' | 'path'
> {
  workflowId: string;
  pending: PendingApproval;
}

export interface LiveSessionEvents {
  tool_approval_required: [ToolApprovalRequired];
  event: [RunEvent];
  error: [Error];
  end: [RunEvent | undefined];
}

export class LiveSession extends EventEmitter<LiveSessionEvents> {
  private readonly abort = new AbortController();
  /** Settles when following stops: the run ended, close() was called, or following failed. */
  readonly done: Promise<void>;

  constructor(
    private readonly runner: Runner,
    readonly workflowId: string,
    options: { after?: number } = {},
  ) {
    super();
    this.done = this.follow(options.after);
  }

  async approveToolCall(callId: string, options: { always?: boolean; approver?: string; reason?: string } = {}) {
    const { always, approver, reason } = options;
    return this.runner.decide(this.workflowId, [
      buildDecision({
        callId,
        decision: 'approve',
        ...(always ? { always } : {}),
        ...(approver ? { approver } : {}),
        ...(reason ? { reason } : {}),
      }),
    ]);
  }

  async rejectToolCall(
    callId: string,
    options: { message?: string; always?: boolean; approver?: string; reason?: string } = {},
  ) {
    const { message, always, approver, reason } = options;
    return this.runner.decide(this.workflowId, [
      buildDecision({
        callId,
        decision: 'reject',
        ...(message ? { message } : {}),
        ...(always ? { always } : {}),
        ...(approver ? { approver } : {}),
        ...(reason ? { reason } : {}),
      }),
    ]);
  }

  /** Stops following (decisions already sent stand). */
  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  private async follow(after = 0): Promise<void> {
    let last: RunEvent | undefined;
    try {
      for await (const e of this.runner.stream(this.workflowId, { after, signal: this.abort.signal, deltas: false })) {
        last = e;
        this.emit('event', e);
        if (e.type === 'approval_requested') {
          const p = e.pending;
          this.emit('tool_approval_required', {
            workflowId: this.workflowId,
            callId: p.callId,
            toolName: p.toolName,
            arguments: p.arguments,
            agentName: p.agentName,
            pending: p,
            ...(p.path ? { path: p.path } : {}),
          });
        }
      }
    } catch (err) {
      if (!this.abort.signal.aborted && this.listenerCount('error') > 0) this.emit('error', err as Error);
    }
    this.emit('end', last);
  }
}
