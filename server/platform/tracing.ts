/**
 * OpenTelemetry tracing of the purchase path, off unless OTEL_TRACES_SAMPLER_RATIO > 0. Off, no
 * SDK is loaded and every traced call site checks `tracingOn()` first and runs its plain code:
 * the purchase path pays one property read, not even the API's no-op spans. On, startTracing
 * registers NodeSDK with ParentBased(TraceIdRatioBased(ratio)), exporting over OTLP/HTTP when an
 * endpoint is configured. The trace's shape: docs/architecture.md, *Tracing*.
 */
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import { BullMQOtel } from "bullmq-otel";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Env } from "./env";

export type TracedProcess = "web" | "seckill" | "worker";

/** On globalThis: Next loads instrumentation.ts and the routes as separate module graphs. */
const state = globalThis as unknown as { __flashSaleTracing?: { shutdown(): Promise<void> } };

/** Whether this process records spans; checked before any tracing work on the purchase path. */
export function tracingOn(): boolean {
  return state.__flashSaleTracing !== undefined;
}

const tracer = trace.getTracer("flash-sale");

/**
 * Starts the SDK once per process, if the ratio asks for it. `extraSpanProcessors` is for tests
 * (an in-memory exporter); the OTLP exporter is added only when an endpoint is configured.
 */
export async function startTracing(env: Env, kind: TracedProcess, extraSpanProcessors: SpanProcessor[] = []): Promise<void> {
  if (tracingOn() || env.OTEL_TRACES_SAMPLER_RATIO <= 0) return;
  const [{ NodeSDK }, { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const url = otlpTracesUrl(env);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? `flash-sale-${kind}`,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(env.OTEL_TRACES_SAMPLER_RATIO) }),
    spanProcessors: [...(url ? [new BatchSpanProcessor(new OTLPTraceExporter({ url }))] : []), ...extraSpanProcessors],
    // Traces only: the metrics are Prometheus's (/api/metrics) and the logs pino's.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  state.__flashSaleTracing = sdk;
}

/** Flushes and stops the SDK (a process shutting down, a test's end); tracing is off after. */
export async function stopTracing(): Promise<void> {
  const sdk = state.__flashSaleTracing;
  state.__flashSaleTracing = undefined;
  await sdk?.shutdown();
}

/** The OTLP/HTTP traces URL: the traces endpoint as given, or the base endpoint's /v1/traces (as the OTLP spec says). */
export function otlpTracesUrl(env: Pick<Env, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT">): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return undefined;
}

/** BullMQ's telemetry option while tracing is on (a job carries its producer's context to the worker), else none. */
export function bullmqTelemetry(): BullMQOtel | undefined {
  return tracingOn() ? new BullMQOtel({ tracerName: "bullmq" }) : undefined;
}

/**
 * Runs `work` in a span, a child of `parent` when given (a remote context: another request's,
 * another process's), of the active span otherwise; an error is recorded and rethrown.
 */
export function inSpan<T>(
  name: string,
  options: { attributes?: Attributes; parent?: SpanContext; links?: Link[] },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const spanOptions = { attributes: options.attributes, links: options.links };
  const run = async (span: Span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };
  if (!options.parent) return tracer.startActiveSpan(name, spanOptions, run);
  return tracer.startActiveSpan(name, spanOptions, trace.setSpanContext(ROOT_CONTEXT, options.parent), run);
}

/**
 * The recorded spans that handed items to a batch (a group commit, the enqueuer), by item key.
 * A batch has one parent, the first of its items' spans, and links to the others, so each
 * purchase's trace reaches the batch and the batch names every purchase in it. Empty while
 * tracing is off: `remember` then returns at once.
 */
export class BatchOrigins {
  private readonly byKey = new Map<string, SpanContext>();

  /** The active span, if recording, as the origin of `key`. */
  remember(key: string): void {
    if (!tracingOn()) return;
    const span = trace.getActiveSpan();
    if (span?.isRecording()) this.byKey.set(key, span.spanContext());
  }

  /** The distinct origins of these keys, forgotten: the first as the parent, the rest as links. */
  take(keys: readonly string[]): { parent?: SpanContext; links: Link[] } {
    if (!this.byKey.size) return { links: [] };
    const distinct = new Map<string, SpanContext>();
    for (const key of keys) {
      const origin = this.byKey.get(key);
      if (!origin) continue;
      this.byKey.delete(key);
      distinct.set(origin.spanId, origin);
    }
    const [parent, ...others] = distinct.values();
    return { parent, links: others.map((context) => ({ context })) };
  }
}

/** The active span's context as a purchase token carries it (trace id, span id: hex), when it is recorded (sampled). */
export function carriedActiveSpan(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return traceId + spanId;
}

/** The sampled span context a token carried (`carriedActiveSpan`'s form), as a remote parent. */
export function carriedSpanContext(carried: string): SpanContext {
  return { traceId: carried.slice(0, 32), spanId: carried.slice(32, 48), traceFlags: TraceFlags.SAMPLED, isRemote: true };
}
