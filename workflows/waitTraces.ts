// A wait for a person as a span of the run's trace, when the worker traces. The workflow interceptors of a traced
// worker (workflows/tracingInterceptors.ts, in the workflow bundle only with tracing on) put a WaitTracer into the
// run's own globals — the SDK keeps each run's globals apart, also in a shared V8 context — so this shared module
// holds no state. The wait (askPerson.ts) reads it, one property read, and comes here only when there is one,
// so an untraced run's wait never enters this module. Spans made in workflow code leave through the SDK's
// exporter sink, which drops what a replay produces: a wait replayed after a restart is never exported twice.
import type { AgentRunState } from '../core/run/agentRunState';
import { SPAN_ATTRIBUTES } from '../contract/traceSpans';
import { endsWait } from '../contract/decisionWords';

export interface WaitSpan {
  end(outcome: string): void;
}
export interface WaitTracer {
  start(attributes: Record<string, string>, startTime: Date): WaitSpan;
}
export const WAIT_TRACER = Symbol.for('countersign.waitTracer');

/**
 * `wait()` (until the call is decided); with a call still pending, a span of `tracer` that ends with the decision.
 * The caller gets the very promise `wait()` returns, so the run's commands come in the same order with tracing on
 * or off, and a run can move between traced and untraced workers. Only waits with a tracer come here.
 */
export function traceWait<T>(
  tracer: WaitTracer,
  state: AgentRunState,
  callId: string,
  wait: () => Promise<T>,
): Promise<T> {
  const call = state.book.call(callId);
  if (!call || call.state !== 'pending') return wait();
  const A = SPAN_ATTRIBUTES;
  const span = tracer.start(
    { [A.agent]: call.agentName, [A.tool]: call.toolName, [A.callId]: callId, [A.kind]: call.kind },
    new Date(call.requestedAt),
  );
  const end = () =>
    span.end(
      state.book.state.audit.findLast((e) => e.callId === callId && endsWait(e.decision))?.decision ?? call.state,
    );
  const waiting = wait();
  waiting.then(end, end);
  return waiting;
}
