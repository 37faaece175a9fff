/** The parts of a tRPC client error the retry reads (TRPCClientErrorLike is not typed as an Error). */
interface CallError {
  data?: { httpStatus?: number; code?: string } | null;
  meta?: Record<string, unknown>;
}

/** Tries before the page stops retrying by itself and offers "Try again": about 15 s in all. */
export const MAX_AUTO_RETRIES = 8;

/**
 * Whether Buy should ask again by itself: a sale that is still being warmed up ("not open yet",
 * PRECONDITION_FAILED) or a shop too busy to answer (503) is a moment, not a refusal, and nothing
 * was taken. Anything else is shown to the shopper.
 */
export function isMomentary(error: CallError): boolean {
  const response = error.meta?.response;
  const status = error.data?.httpStatus ?? (response instanceof Response ? response.status : undefined);
  return error.data?.code === "PRECONDITION_FAILED" || status === 503;
}

/** The wait before retry number `attempt` (0-based): 300 ms, doubling, at most 3 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(3000, 300 * 2 ** attempt);
}
