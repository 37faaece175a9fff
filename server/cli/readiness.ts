/**
 * When the processes `npm start` spawned are ready for the front door to send them visitors: each
 * answers /api/health with 200 (its database, Redis and queue reachable, its handler loaded).
 */

const POLL_MS = 250;
const PROBE_TIMEOUT_MS = 2000;

export async function isHealthy(port: number, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  try {
    const answer = await fetchImpl(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await answer.body?.cancel();
    return answer.status === 200;
  } catch {
    // Not listening yet, or still loading: asked again on the next round.
    return false;
  }
}

/** Resolves true once every port is healthy, false as soon as `stopped()` says to give up. */
export async function untilAllHealthy(ports: readonly number[], stopped: () => boolean, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  const waiting = new Set(ports);
  while (waiting.size > 0) {
    if (stopped()) return false;
    const answers = await Promise.all([...waiting].map(async (port) => [port, await isHealthy(port, fetchImpl)] as const));
    for (const [port, healthy] of answers) if (healthy) waiting.delete(port);
    if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return !stopped();
}
