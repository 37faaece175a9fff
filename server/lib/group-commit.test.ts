import { describe, expect, it } from "vitest";
import { GroupCommitter } from "./group-commit";

describe("GroupCommitter", () => {
  it("flushes as soon as a batch is full", async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
      3,
      10_000,
    );
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => committer.submit(i)));
    expect(results).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it("flushes a partial batch after the wait", async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      100,
      5,
    );
    await Promise.all([committer.submit(1), committer.submit(2)]);
    expect(batches).toEqual([[1, 2]]);
  });

  it("fails every item of a failed batch, and only that batch", async () => {
    let calls = 0;
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        calls++;
        if (calls === 1) throw new Error("MySQL went away");
        return items;
      },
      2,
      5,
    );
    const first = await Promise.allSettled([committer.submit(1), committer.submit(2)]);
    expect(first.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    await expect(committer.submit(3)).resolves.toBe(3);
  });

  it("drain waits for batches in flight", async () => {
    let finished = false;
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        await new Promise((r) => setTimeout(r, 30));
        finished = true;
        return items;
      },
      10,
      1000,
    );
    const pending = committer.submit(1);
    await committer.drain();
    expect(finished).toBe(true);
    await expect(pending).resolves.toBe(1);
  });
});

describe("GroupCommitter with one flush at a time", () => {
  it("collects what arrives during a flush into the next batch, and never runs two flushes at once", async () => {
    const batches: number[][] = [];
    let running = 0;
    let mostAtOnce = 0;
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        batches.push(items);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return items;
      },
      100,
      0,
      1,
    );
    const first = committer.submit(1);
    await new Promise((r) => setTimeout(r, 5)); // the first flush is running now
    const rest = [2, 3, 4].map((i) => committer.submit(i));
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    expect(mostAtOnce).toBe(1);
  });

  it("drain flushes what waits behind a running flush", async () => {
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        await new Promise((r) => setTimeout(r, 20));
        return items;
      },
      100,
      10_000,
      1,
    );
    const results = [1, 2].map((i) => committer.submit(i));
    await committer.drain();
    await expect(Promise.all(results)).resolves.toEqual([1, 2]);
  });
});
