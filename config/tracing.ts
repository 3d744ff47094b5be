// A process's traces: one tracer and one span pipeline, built on first use and only when tracing is on
// (OTEL_EXPORTER_OTLP_ENDPOINT). Every OpenTelemetry package is imported here on that first use, never when a
// module loads, so a process with tracing off loads none of them (test/unit/tracingOff.test.ts). Spans leave
// through a filter that keeps what could carry a run's data out of them.
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingSettings } from './settings';

export interface Tracing {
  tracer: Tracer;
  /** Where finished spans go; a worker hands it its workflows' spans too (the SDK's exporter sink). */
  processor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered (also done once before the process exits). */
  flush(): Promise<void>;
}

/** Tests: spans go to this exporter as they end, instead of to a collector. */
export interface ExporterTracing {
  serviceName: string;
  exporter: SpanExporter;
}

let started: Promise<Tracing> | undefined;

/** The process's tracing, built on the first call; later calls get the same one, whatever they pass. */
export function startTracing(settings: TracingSettings | ExporterTracing): Promise<Tracing> {
  started ??= build(settings);
  return started;
}

/** The OTLP/HTTP traces URL under a collector's base URL, as the OpenTelemetry specification derives it. */
export function tracesUrl(endpoint: string): string {
  return new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).toString();
}

async function build(settings: TracingSettings | ExporterTracing): Promise<Tracing> {
  const [api, core, { Resource }, sdk, { AsyncLocalStorageContextManager }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const resource = new Resource({ 'service.name': settings.serviceName });
  const processor =
    'exporter' in settings
      ? new sdk.SimpleSpanProcessor(settings.exporter)
      : new sdk.BatchSpanProcessor(
          new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({
            url: tracesUrl(settings.endpoint),
          }),
        );
  const filtered = withoutRunData(processor);
  const provider = new sdk.BasicTracerProvider({ resource });
  provider.addSpanProcessor(filtered);
  // The SDK's interceptors carry the trace through Temporal headers with the global propagator, and activities
  // see their span through the global context manager. A process that set its own first keeps them; the tracer
  // provider is not made global: Countersign passes its tracer to the interceptors.
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  const flush = () => provider.forceFlush();
  process.once('beforeExit', () => void flush());
  return { tracer: provider.getTracer('countersign'), processor: filtered, resource, flush };
}

/**
 * The SDK adds its workflow info to every workflow span (memo, search attributes, a cron run's last result) and puts
 * error messages in statuses and exception events; those can quote a call's arguments. Spans keep plain values only,
 * none of those keys, and of an error its type.
 */
const RUN_DATA_KEYS = new Set(['memo', 'searchAttributes', 'typedSearchAttributes', 'lastResult', 'lastFailure']);
const plain = (v: unknown) =>
  ['string', 'number', 'boolean'].includes(typeof v) ||
  (Array.isArray(v) && v.every((x) => ['string', 'number', 'boolean'].includes(typeof x)));

export function withoutRunData(next: SpanProcessor): SpanProcessor {
  const scrub = (span: ReadableSpan): ReadableSpan => {
    const attributes = Object.fromEntries(
      Object.entries(span.attributes).filter(([k, v]) => !RUN_DATA_KEYS.has(k) && plain(v)),
    );
    const events = span.events.map((e) => ({
      ...e,
      attributes:
        e.attributes?.['exception.type'] !== undefined ? { 'exception.type': e.attributes['exception.type'] } : {},
    }));
    return Object.create(span, {
      attributes: { value: attributes },
      events: { value: events },
      status: { value: { code: span.status.code } },
    }) as ReadableSpan;
  };
  return {
    onStart: (span, ctx) => next.onStart(span, ctx),
    onEnd: (span) => next.onEnd(scrub(span)),
    forceFlush: () => next.forceFlush(),
    shutdown: () => next.shutdown(),
  };
}
