import { describe, expect, it } from "vitest";
import { changeStock, StockConflictError, StockShortageError, type StockRow, type StockStore } from "./ledger";

/** An in-memory stock row that can be made to lose races, to drive the retry logic. */
function fakeStore(row: StockRow, options: { concurrentWritesBeforeCas?: number } = {}) {
  let racesLeft = options.concurrentWritesBeforeCas ?? 0;
  const calls = { reads: 0, cas: 0 };
  const store: StockStore = {
    async read() {
      calls.reads++;
      return { ...row };
    },
    async compareAndAdd(_saleId, expectedVersion, delta) {
      calls.cas++;
      if (racesLeft > 0) {
        // Another writer commits between our read and our update: one unit sold, version moves on.
        racesLeft--;
        row = { count: row.count - 1, version: row.version + 1 };
      }
      if (row.version !== expectedVersion || row.count + delta < 0) return false;
      row = { count: row.count + delta, version: row.version + 1 };
      return true;
    },
  };
  return { store, calls, current: () => row };
}

describe("changeStock (versioned update)", () => {
  it("deducts a batch in one update when nobody races", async () => {
    const fake = fakeStore({ count: 10, version: 3 });
    await expect(changeStock(fake.store, 1, -4)).resolves.toEqual({ count: 6, version: 4, attempts: 1 });
    expect(fake.current()).toEqual({ count: 6, version: 4 });
  });

  it("re-reads and retries after a forced version conflict, deducting exactly once", async () => {
    const fake = fakeStore({ count: 10, version: 0 }, { concurrentWritesBeforeCas: 2 });
    const change = await changeStock(fake.store, 1, -3);
    expect(change.attempts).toBe(3);
    expect(fake.calls).toEqual({ reads: 3, cas: 3 });
    // 2 units taken by the racing writers, 3 by us.
    expect(fake.current()).toEqual({ count: 5, version: 3 });
  });

  it("refuses to go below zero", async () => {
    const fake = fakeStore({ count: 2, version: 0 });
    await expect(changeStock(fake.store, 9, -3)).rejects.toBeInstanceOf(StockShortageError);
    expect(fake.current()).toEqual({ count: 2, version: 0 });
  });

  it("gives up when the version never settles", async () => {
    const fake = fakeStore({ count: 1000, version: 0 }, { concurrentWritesBeforeCas: 1000 });
    await expect(changeStock(fake.store, 1, -1, 5)).rejects.toBeInstanceOf(StockConflictError);
  });

  it("adds units back the same way", async () => {
    const fake = fakeStore({ count: 0, version: 7 });
    await expect(changeStock(fake.store, 1, +2)).resolves.toMatchObject({ count: 2, version: 8 });
  });
});
