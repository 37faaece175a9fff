import { describe, expect, it } from "vitest";
import { GroupCommitter } from "./group-commit";

describe("GroupCommitter", () => {
  it("flushes as soon as a batch is full", async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(async (items) => {
      batches.push(items);
      return items.map((i) => i * 10);
    }, 3, 10_000);
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => committer.submit(i)));
    expect(results).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  it("flushes a partial batch after the wait", async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(async (items) => {
      batches.push(items);
      return items;
    }, 100, 5);
    await Promise.all([committer.submit(1), committer.submit(2)]);
    expect(batches).toEqual([[1, 2]]);
  });

  it("fails every item of a failed batch, and only that batch", async () => {
    let calls = 0;
    const committer = new GroupCommitter<number, number>(async (items) => {
      calls++;
      if (calls === 1) throw new Error("MySQL went away");
      return items;
    }, 2, 5);
    const first = await Promise.allSettled([committer.submit(1), committer.submit(2)]);
    expect(first.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    await expect(committer.submit(3)).resolves.toBe(3);
  });

  it("drain waits for batches in flight", async () => {
    let finished = false;
    const committer = new GroupCommitter<number, number>(async (items) => {
      await new Promise((r) => setTimeout(r, 30));
      finished = true;
      return items;
    }, 10, 1000);
    const pending = committer.submit(1);
    await committer.drain();
    expect(finished).toBe(true);
    await expect(pending).resolves.toBe(1);
  });
});
