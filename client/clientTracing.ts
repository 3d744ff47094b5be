// A client's tracing (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK's OpenTelemetry client interceptor, so a service's
// `start` opens the trace that the run's workflow, activity and Countersign spans join, and its signals, updates
// and queries carry their trace too. Imported only when tracing is on.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { Tracing } from '../config/tracing';

export async function tracingClientInterceptors({
  tracer,
}: Tracing): Promise<{ workflow: WorkflowClientInterceptor[] }> {
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry/lib/client');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] };
}
