/**
 * At most `limit` requests handed to the HTTP client at once; the others wait here, in order, as
 * one callback each. An open loop's backlog then costs a few bytes per shopper instead of an HTTP
 * request object each: at a million arrivals those made the load generator the bottleneck.
 */
export class InFlightLimit {
  private running = 0;
  private waiting: (() => void)[] = [];
  private head = 0;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`InFlightLimit needs a whole number of at least 1, not ${limit}`);
  }

  /** Requests waiting for a place. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  get inFlight(): number {
    return this.running;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  // The place passes straight to the next in line, so nobody overtakes a waiter.
  private release() {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head++]!;
      if (this.head > 4096 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      next();
    } else {
      this.running--;
    }
  }
}
