/**
 * Collects items that arrive close together and hands them to `flush` as one batch: at most
 * `maxBatch` items, waiting at most `maxWaitMs` after the first, with at most `maxInFlight`
 * batches being flushed at once. Each submitter gets its own item's result (or the batch's
 * error). This turns N concurrent jobs into one MySQL transaction.
 *
 * While every flush slot is busy, items keep collecting, so under load batches fill by
 * themselves (a group commit's natural batching) instead of queueing as many small transactions
 * for one locked stock row.
 */
export class GroupCommitter<Item, Result> {
  private queue: { item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The oldest item waiting has waited maxWaitMs: flush it with the next free slot. */
  private due = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly flush: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch: number,
    private readonly maxWaitMs: number,
    private readonly maxInFlight = Number.POSITIVE_INFINITY,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.due = true;
        this.flushWhatCan();
      }, this.maxWaitMs);
      this.flushWhatCan();
    });
  }

  /** Resolves once everything submitted so far has been flushed. */
  async drain(): Promise<void> {
    this.due = true;
    this.flushWhatCan();
    while (this.inFlight.size) {
      await Promise.allSettled([...this.inFlight]);
      this.due = true;
      this.flushWhatCan();
    }
  }

  private flushWhatCan(): void {
    while (this.queue.length && this.inFlight.size < this.maxInFlight && (this.due || this.queue.length >= this.maxBatch)) {
      this.start(this.queue.splice(0, this.maxBatch));
    }
    if (!this.queue.length) {
      this.due = false;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private start(batch: typeof this.queue): void {
    const run = this.flush(batch.map((b) => b.item))
      .then((results) => {
        if (results.length !== batch.length) throw new Error("flush must return one result per item");
        batch.forEach((b, i) => b.resolve(results[i] as Result));
      })
      .catch((error: unknown) => batch.forEach((b) => b.reject(error)));
    this.inFlight.add(run);
    void run.finally(() => {
      this.inFlight.delete(run);
      this.flushWhatCan();
    });
  }
}
