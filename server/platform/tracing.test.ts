import { describe, expect, it } from "vitest";
import { BatchOrigins, otlpTracesUrl, tracingOn } from "./tracing";

describe("tracing configuration", () => {
  it("sends traces to the traces endpoint as given, else to the base endpoint's /v1/traces, else nowhere", () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined })).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      otlpTracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://tempo:4318/traces",
      }),
    ).toBe("http://tempo:4318/traces");
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined })).toBeUndefined();
  });
  it("is off unless started, and then remembers no batch origins", () => {
    expect(tracingOn()).toBe(false);
    const origins = new BatchOrigins();
    origins.remember("r1");
    expect(origins.take(["r1"])).toEqual({ links: [] });
  });
});
