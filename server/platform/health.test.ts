import { describe, expect, it } from "vitest";
import { checkReadiness, sharedCheck, type ReadinessServices } from "./health";

describe("sharedCheck", () => {
  it("asks once for callers at the same time, and again only once the answer is freshMs old", async () => {
    let clock = 0;
    let asked = 0;
    const ask = sharedCheck(
      async () => ++asked,
      1000,
      () => clock,
    );
    expect(await Promise.all([ask(), ask(), ask()])).toEqual([1, 1, 1]);
    clock = 999;
    expect(await ask()).toBe(1);
    clock = 1000;
    expect(await ask()).toBe(2);
    expect(asked).toBe(2);
  });

  it("never keeps a failure: the next caller asks again", async () => {
    let asked = 0;
    const ask = sharedCheck(async () => {
      asked++;
      if (asked === 1) throw new Error("down");
      return "up";
    }, 60_000);
    await expect(ask()).rejects.toThrow("down");
    expect(await ask()).toBe("up");
  });
});

describe("checkReadiness", () => {
  const services = (redis: () => Promise<unknown>, queue: () => Promise<unknown>) =>
    ({ redis: { ping: redis }, queues: { createOrder: { getJobCounts: queue } } }) as unknown as ReadinessServices;
  const never = () => new Promise(() => {});

  it("is ready with Redis and the queue answering, and asks nothing of MySQL", async () => {
    expect(
      await checkReadiness(
        services(
          async () => "PONG",
          async () => ({ waiting: 0 }),
        ),
      ),
    ).toEqual({ ready: true });
  });

  it("is not ready when Redis or the queue fails or is silent past the timeout", async () => {
    expect(
      await checkReadiness(
        services(
          async () => Promise.reject(new Error("ECONNREFUSED")),
          async () => ({}),
        ),
      ),
    ).toEqual({ ready: false });
    expect(
      await checkReadiness(
        services(async () => "PONG", never),
        50,
      ),
    ).toEqual({ ready: false });
  });
});
