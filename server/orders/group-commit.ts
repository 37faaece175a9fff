/**
 * Collects items that arrive close together and hands them to `flush` as one batch: at most
 * `maxBatch` items, waiting at most `maxWaitMs` after the first. Each submitter gets its own
 * item's result (or the batch's error). This turns N concurrent jobs into one MySQL transaction.
 */
export class GroupCommitter<Item, Result> {
  private queue: { item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly flush: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch: number,
    private readonly maxWaitMs: number,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), this.maxWaitMs);
    });
  }

  /** Resolves once every batch started so far has finished. */
  async drain(): Promise<void> {
    if (this.queue.length) this.flushNow();
    await Promise.allSettled([...this.inFlight]);
  }

  private flushNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length) this.timer = setTimeout(() => this.flushNow(), this.maxWaitMs);
    if (!batch.length) return;
    const run = this.flush(batch.map((b) => b.item)).then(
      (results) => {
        if (results.length !== batch.length) throw new Error("flush must return one result per item");
        batch.forEach((b, i) => b.resolve(results[i] as Result));
      },
    ).catch((error: unknown) => batch.forEach((b) => b.reject(error)));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }
}
