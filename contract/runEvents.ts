// A run's events as readers get them: the `events` query's pages and the client's streams. The log that makes
// them lives in core/run/eventLog.ts.
import type { AuditEntry, PendingApproval } from './runViews';

interface EventBase {
  /** 1, 2, … for the life of the workflow id, across continue-as-new. */
  seq: number;
  /** ISO-8601, workflow time. */
  at: string;
  agentName: string;
  callId?: string;
  /** For a call inside a sub-agent: the tools that lead to it. */
  path?: string;
}

export type RunEvent = EventBase &
  (
    | { type: 'run_started'; input: string }
    | { type: 'turn_started'; turn: number }
    | {
        type: 'tool_called';
        callId: string;
        toolName: string;
        arguments: string;
        needsPerson: boolean;
        /** The model provider ran it within the turn (a hosted tool, a hosted MCP call): no person could gate it. */
        providerExecuted?: true;
      }
    | { type: 'approval_requested'; callId: string; pending: PendingApproval }
    | {
        type: 'decision';
        callId: string;
        outcome: AuditEntry['decision'];
        approver?: string;
        via: AuditEntry['via'];
        reason?: string;
        message?: string;
      }
    | { type: 'tool_output'; callId: string; output: string }
    | { type: 'handoff'; from: string; to: string; callId: string }
    | { type: 'message_output'; text: string }
    | { type: 'run_paused'; pending: string[] }
    | { type: 'run_completed'; finalOutput: string }
    | { type: 'run_failed'; error: string; errorType?: string }
    // Not in the log: streamed to readers while a model call runs (see client/run/modelDeltas.ts), never in history.
    | { type: 'model_text_delta'; turn: number; delta: string }
  );

export type RunEventType = RunEvent['type'];

/** One page of the `events` query. */
export interface EventPage {
  events: RunEvent[];
  /** The cursor to ask with next: the seq of the last event returned (or `after`, if none). */
  next: number;
  /** The oldest seq still kept: a reader whose cursor is older missed events (the log is bounded). */
  first: number;
  /** Whether the run has ended (no more events will come). */
  ended: boolean;
  /** The newest seq so far: where a reader that only wants what comes next starts. */
  last: number;
}

/** What modelTurn heartbeats once at its start when the worker relays deltas; client/run/modelDeltas.ts reads it. */
export interface DeltaHeartbeat {
  turn: number;
  /** The turn's SSE feed on this worker's relay: <relay url>/runs/<encoded workflow id>/turns/<turn>. */
  deltas: string;
}
