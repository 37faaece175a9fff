import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import { AppError } from "../platform/errors";
import { BUSY } from "../platform/common-sentences";
import { sentence } from "../platform/sentences/sentence";

/**
 * A requests-per-second limit per identifier (an IP, a shopper), sliding window, with
 * `@upstash/ratelimit`. Identifiers already known to be over the limit are answered in-process
 * (ephemeralCache) until their window resets. When Redis cannot answer, the limiter fails CLOSED.
 */
export interface RateVerdict {
  allowed: boolean;
  /** Whole seconds until the identifier may try again (0 when allowed). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly limiter: Ratelimit | null;

  constructor(redis: UpstashRedis, options: { prefix: string; perSecond: number }) {
    this.limiter =
      options.perSecond > 0
        ? new Ratelimit({
            redis,
            prefix: options.prefix,
            limiter: Ratelimit.slidingWindow(options.perSecond, "1 s"),
            ephemeralCache: new Map(),
            // Upstash's timeout lets requests THROUGH when Redis is slow; ours must not, so it is
            // off and the Redis client's own command timeout turns slowness into an error.
            timeout: 0,
            analytics: false,
          })
        : null;
  }

  get enabled(): boolean {
    return this.limiter !== null;
  }

  /**
   * Counts `units` requests at once (a batch of calls): a batch over what the window has left
   * is refused whole, and still counted, as @upstash/ratelimit's `rate` does.
   */
  async check(identifier: string, units = 1, now = Date.now()): Promise<RateVerdict> {
    if (!this.limiter) return { allowed: true, retryAfterSeconds: 0 };
    let result: Awaited<ReturnType<Ratelimit["limit"]>>;
    try {
      // Braces make the identifier a hash tag: its window keys share one Cluster slot.
      result = await this.limiter.limit(`{${identifier}}`, units === 1 ? undefined : { rate: units });
    } catch (error) {
      throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause: error });
    }
    if (result.reason === "timeout") {
      throw new AppError("SERVICE_UNAVAILABLE", BUSY);
    }
    return result.success
      ? { allowed: true, retryAfterSeconds: 0 }
      : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((result.reset - now) / 1000)) };
  }
}

export function tooManyRequests(retryAfterSeconds: number): AppError {
  return new AppError(
    "TOO_MANY_REQUESTS",
    sentence((s) => s.gateway.tooManyRequests(retryAfterSeconds)),
    { retryAfterSeconds },
  );
}
