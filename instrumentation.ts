/**
 * Runs once as each Next.js server starts, before it takes a request: a web process on a
 * configuration it must not run on (a demo secret in production, a malformed variable) stops
 * here with one line naming the variable and a non-zero exit (server/env.ts, env()), rather
 * than starting and failing every request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./server/env");
  env();
}
