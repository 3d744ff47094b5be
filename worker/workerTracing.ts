// A traced worker's options (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK's OpenTelemetry interceptors for activities, the
// sink its workflow interceptors export through, and Countersign's spans around model turns and tool calls — named by
// agent, tool and outcome, never by argument. Imported only when tracing is on.
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next, WorkerOptions } from '@temporalio/worker';
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { Tracing } from '../config/tracing';
import { SPAN_ATTRIBUTES as A, SPAN_NAMES } from '../contract/traceSpans';
import type { ModelTurnRequest, ModelTurnResult, RunToolRequest, RunToolResult } from '../activities/agentActivities';

export type TracingWorkerOptions = Required<Pick<WorkerOptions, 'sinks'>> & {
  interceptors: { activity: NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']> };
};

export async function tracingWorkerOptions(tracing: Tracing): Promise<TracingWorkerOptions> {
  const otel = await import('@temporalio/interceptors-opentelemetry/lib/worker');
  const { SpanStatusCode } = await import('@opentelemetry/api');
  const { tracer } = tracing;
  return {
    interceptors: {
      activity: [
        // First, so that Countersign's span is a child of the SDK's RunActivity span.
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        (ctx) => ({ inbound: new CountersignActivitySpans(ctx, tracer, SpanStatusCode.ERROR) }),
      ],
    },
    sinks: { exporter: otel.makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}

/** The model turn's and the tool call's span: what ran for which agent, and how it ended. */
class CountersignActivitySpans implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly tracer: Tracer,
    private readonly errorCode: number,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { activityType, attempt } = this.ctx.info;
    if (activityType !== 'modelTurn' && activityType !== 'runTool') return next(input);
    const name = activityType === 'modelTurn' ? SPAN_NAMES.modelTurn : SPAN_NAMES.toolCall;
    return this.tracer.startActiveSpan(
      name,
      { attributes: { ...requestAttributes(activityType, input.args[0]), [A.attempt]: attempt } },
      async (span) => {
        try {
          const result = await next(input);
          span.setAttributes(resultAttributes(activityType, result));
          return result;
        } catch (err) {
          span.setAttribute(A.outcome, 'error');
          span.setStatus({ code: this.errorCode });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }
}

/** Names only: the request's arguments, items and context stay out. */
function requestAttributes(type: 'modelTurn' | 'runTool', arg: unknown): Attributes {
  if (type === 'modelTurn') {
    const req = arg as Partial<ModelTurnRequest>;
    return { [A.agent]: req.agent?.name ?? '', ...(req.turn !== undefined ? { [A.turn]: req.turn } : {}) };
  }
  const req = arg as Partial<RunToolRequest>;
  return { [A.agent]: req.agent?.name ?? '', [A.tool]: req.toolName ?? '', [A.callId]: req.callId ?? '' };
}

function resultAttributes(type: 'modelTurn' | 'runTool', result: unknown): Attributes {
  if (type === 'runTool') return { [A.outcome]: (result as RunToolResult).ok === false ? 'error' : 'ok' };
  return { [A.outcome]: 'ok', [A.calledTools]: ((result as ModelTurnResult).calls ?? []).map((c) => c.toolName) };
}

/** A worker's options with tracing's added: its activity interceptors after the given ones' , its sink beside theirs. */
export function withTracing<T extends Partial<WorkerOptions>>(options: T, tracing: TracingWorkerOptions): T {
  const interceptors = {
    ...options.interceptors,
    activity: [...(options.interceptors?.activity ?? []), ...tracing.interceptors.activity],
  };
  return { ...options, interceptors, sinks: { ...options.sinks, ...tracing.sinks } };
}
