/**
 * Runs once as each Next.js server starts, before it takes a request: a web process on a
 * configuration it must not run on (a demo secret in production, a malformed variable) stops
 * here with one line naming the variable and a non-zero exit (server/platform/env.ts, env()), rather
 * than starting and failing every request. Tracing starts here too, before the first request
 * builds the services (server/platform/tracing.ts; off unless OTEL_TRACES_SAMPLER_RATIO > 0).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./server/platform/env");
  const { startTracing } = await import("./server/platform/tracing");
  await startTracing(env(), "web");
}
