// The workflow interceptors of a traced worker: in the workflow bundle only when tracing is on
// (worker/workflowBundle.ts), never in the shared workflow graph. The SDK's OpenTelemetry interceptors trace the run,
// its activities, signals, updates and queries; their spans leave through the worker's `exporter` sink, which the
// SDK does not call while a run replays. Countersign adds the waits for a person (workflows/waitTraces.ts).
import { trace } from '@opentelemetry/api';
import { interceptors as openTelemetryInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { type WorkflowInterceptors, workflowInfo } from '@temporalio/workflow';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../contract/traceSpans';
import { WAIT_TRACER, type WaitTracer } from './waitTraces';

/**
 * Called once per run, in the run's own context: its globals and this module's instance are the run's. Agent runs
 * only: the SDK's spans draw their ids from the run's deterministic randomness, and an update validator (which a
 * replay does not run) would then move the grants workflow's grant ids (uuid4) between the run and its replays.
 */
export function interceptors(): WorkflowInterceptors {
  if (workflowInfo().workflowType !== 'agentRun') return {};
  const chain = openTelemetryInterceptors(); // registers the run's tracer provider, which exports through the sink
  const tracer = trace.getTracer('countersign');
  const waits: WaitTracer = {
    start(attributes, startTime) {
      const span = tracer.startSpan(SPAN_NAMES.waitForPerson, { attributes, startTime });
      return {
        end(outcome) {
          span.setAttribute(SPAN_ATTRIBUTES.outcome, outcome);
          span.end();
        },
      };
    },
  };
  Object.defineProperty(globalThis, WAIT_TRACER, { value: waits, configurable: true });
  return chain;
}
