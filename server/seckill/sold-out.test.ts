import { describe, expect, it } from "vitest";
import { parseSoldOutMessage, SoldOutFlags } from "./sold-out";

/** A recheck the test answers by hand, counting how often it was asked. */
function manualRecheck() {
  const pending: ((soldOut: boolean) => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  return {
    recheck: (_saleId: number) =>
      new Promise<boolean>((resolve, reject) => {
        pending.push(resolve);
        failures.push(reject);
      }),
    get asked() {
      return pending.length;
    },
    answer: (soldOut: boolean) => pending.at(-1)!(soldOut),
    fail: () => failures.at(-1)!(new Error("Redis is down")),
  };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Flags of a 500 ms lifetime on a hand-driven clock, sale 1 flagged sold out at its start. */
function flaggedSale() {
  let now = 1_000;
  const redis = manualRecheck();
  const flags = new SoldOutFlags(500, redis.recheck, () => now);
  flags.apply({ saleId: 1, soldOut: true });
  return { flags, redis, advance: (ms: number) => (now += ms) };
}

describe("SoldOutFlags", () => {
  it("answers sold out once told, until told otherwise, without asking Redis", () => {
    const redis = manualRecheck();
    const flags = new SoldOutFlags(10_000, redis.recheck);
    expect(flags.isSoldOut(1)).toBe(false);
    flags.apply({ saleId: 1, soldOut: true });
    expect(flags.isSoldOut(1)).toBe(true);
    expect(flags.isSoldOut(2)).toBe(false);
    flags.apply({ saleId: 1, soldOut: false });
    expect(flags.isSoldOut(1)).toBe(false);
    expect(redis.asked).toBe(0);
  });

  it("a lapsed flag asks Redis once, however many requests come, and answers meanwhile", () => {
    const { flags, redis, advance } = flaggedSale();
    advance(499);
    expect(flags.isSoldOut(1)).toBe(true);
    expect(redis.asked).toBe(0);
    advance(1);
    for (let i = 0; i < 100; i++) expect(flags.isSoldOut(1)).toBe(true);
    expect(redis.asked).toBe(1);
  });

  it("still sold out: the flag is renewed for another lifetime", async () => {
    const { flags, redis, advance } = flaggedSale();
    advance(500);
    flags.isSoldOut(1);
    redis.answer(true);
    await settle();
    advance(499);
    expect(flags.isSoldOut(1)).toBe(true);
    expect(redis.asked).toBe(1);
  });

  it("stock back, or no answer from Redis: the flag is dropped, so a stale sold-out message cannot shut a sale", async () => {
    const { flags, redis, advance } = flaggedSale();
    flags.apply({ saleId: 2, soldOut: true });
    advance(500);
    flags.isSoldOut(1);
    redis.answer(false);
    flags.isSoldOut(2);
    redis.fail();
    await settle();
    expect(flags.isSoldOut(1)).toBe(false);
    expect(flags.isSoldOut(2)).toBe(false);
  });

  it("a broadcast that lands during the recheck wins over its reply", async () => {
    const { flags, redis, advance } = flaggedSale();
    advance(500);
    flags.isSoldOut(1);
    flags.apply({ saleId: 1, soldOut: false }); // units released while Redis was asked
    redis.answer(true);
    await settle();
    expect(flags.isSoldOut(1)).toBe(false);
  });
});

describe("parseSoldOutMessage", () => {
  it("reads a well-formed message and ignores anything else", () => {
    expect(parseSoldOutMessage('{"saleId":3,"soldOut":true}')).toEqual({ saleId: 3, soldOut: true });
    expect(parseSoldOutMessage('{"saleId":"3","soldOut":true}')).toBeNull();
    expect(parseSoldOutMessage("not json")).toBeNull();
  });
});
