import { describe, expect, it } from "vitest";
import { checkReadiness, type ReadinessServices } from "./health";

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
