import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createAppRedis } from "../platform/redis-scripts";
import { deleteRedisNamespace } from "../testing/resources";
import { newOutTradeNo } from "./pay";
import { ProviderUnavailableError } from "./provider";
import { sandboxProvider } from "./sandbox";
import { SandboxTrades } from "./sandbox-trades";

/**
 * The sandbox adapter's questions to the provider's books (query, close, refund) against real
 * Redis: each answer is what the books say, paying and closing race for one outcome, and a
 * refund happens once per trade however often it is asked for.
 */
const target = { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0", REDIS_CLUSTER_NODES: [] };
const namespace = `t_sandbox_${randomBytes(3).toString("hex")}`;
const redis = createAppRedis(target, { maxRetriesPerRequest: 1 });
const trades = new SandboxTrades(redis, namespace);
const env = { SANDBOX_PAY_APP_ID: "test-app", SANDBOX_PAY_KEY: "k".repeat(40), PUBLIC_BASE_URL: "http://127.0.0.1:3000" };
const provider = sandboxProvider(env, trades);
afterAll(async () => {
  await deleteRedisNamespace(target, namespace);
  redis.disconnect();
});

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const opened = async (amountCents = 9900, expiresAt = inAnHour()) => {
  const no = newOutTradeNo();
  await trades.open(no, { amountCents, notifyUrl: "http://127.0.0.1:3000/api/payments/notify", expiresAt });
  return no;
};
const refundOf = (outTradeNo: string, refundNo = `r${outTradeNo}`, amountCents = 9900) =>
  provider.refund({
    outTradeNo,
    providerTradeNo: "x",
    refundNo,
    amountCents,
    totalCents: amountCents,
    reason: "test",
    notifyUrl: "http://127.0.0.1:3000/api/payments/notify",
  });

describe("queryTrade", () => {
  it("ABSENT before the buyer opened the cashier, UNPAID after, PAID once confirmed", async () => {
    const no = newOutTradeNo();
    expect(await provider.queryTrade(no)).toEqual({ state: "ABSENT" });
    await trades.open(no, { amountCents: 9900, notifyUrl: "n", expiresAt: inAnHour() });
    expect(await provider.queryTrade(no)).toEqual({ state: "UNPAID" });
    await trades.pay(no, { tradeNo: "SBX-1", amountCents: 9900 });
    expect(await provider.queryTrade(no)).toEqual({ state: "PAID", providerTradeNo: "SBX-1", amountCents: 9900 });
  });

  it("an unpaid trade past its expiry is closed, for good", async () => {
    const no = await opened(9900, new Date(Date.now() - 1000).toISOString());
    expect(await provider.queryTrade(no)).toEqual({ state: "CLOSED" });
    expect(await trades.pay(no, { tradeNo: "SBX-late", amountCents: 9900 })).toEqual({ state: "CLOSED" });
  });
});

describe("closeTrade", () => {
  it("closes an open trade: it can no longer be paid", async () => {
    const no = await opened();
    expect(await provider.closeTrade(no)).toBe("CLOSED");
    expect(await trades.pay(no, { tradeNo: "SBX-2", amountCents: 9900 })).toEqual({ state: "CLOSED" });
    expect(await provider.queryTrade(no)).toEqual({ state: "CLOSED" });
    expect(await provider.closeTrade(no)).toBe("CLOSED");
  });

  it("closes a trade never opened, so its old link cannot pay later", async () => {
    const no = newOutTradeNo();
    expect(await provider.closeTrade(no)).toBe("CLOSED");
    await trades.open(no, { amountCents: 9900, notifyUrl: "n", expiresAt: inAnHour() });
    expect(await trades.pay(no, { tradeNo: "SBX-3", amountCents: 9900 })).toEqual({ state: "CLOSED" });
  });

  it("answers PAID for a paid trade, which stays paid", async () => {
    const no = await opened();
    await trades.pay(no, { tradeNo: "SBX-4", amountCents: 9900 });
    expect(await provider.closeTrade(no)).toBe("PAID");
    expect(await provider.queryTrade(no)).toMatchObject({ state: "PAID", providerTradeNo: "SBX-4" });
  });

  it("raced against the buyer's Confirm 20 times at once: one outcome, told the same to both sides", async () => {
    for (let round = 0; round < 20; round++) {
      const no = await opened();
      const [paid, closed] = await Promise.all([trades.pay(no, { tradeNo: `SBX-R${round}`, amountCents: 9900 }), provider.closeTrade(no)]);
      expect(paid.state).toBe(closed);
    }
  });
});

describe("refund", () => {
  it("refunds a paid trade at once, and asking again with the same number is the same refund", async () => {
    const no = await opened();
    await trades.pay(no, { tradeNo: "SBX-5", amountCents: 9900 });
    expect(await refundOf(no)).toEqual({ state: "SUCCEEDED", providerRefundNo: "SBXRSBX-5" });
    expect(await refundOf(no)).toEqual({ state: "SUCCEEDED", providerRefundNo: "SBXRSBX-5" });
    expect(await provider.queryRefund({ outTradeNo: no, refundNo: `r${no}` })).toEqual({
      state: "SUCCEEDED",
      providerRefundNo: "SBXRSBX-5",
    });
  });

  it("refuses a second refund number, another amount, a trade not paid; an unknown refund is ABSENT", async () => {
    const no = await opened();
    expect(await refundOf(no)).toEqual({ state: "FAILED", reason: `trade ${no} is not paid` });
    await trades.pay(no, { tradeNo: "SBX-6", amountCents: 9900 });
    expect(await refundOf(no, "r-other", 100)).toMatchObject({ state: "FAILED", reason: expect.stringMatching(/refund of 100 cents/) });
    expect(await refundOf(no)).toMatchObject({ state: "SUCCEEDED" });
    expect(await refundOf(no, "r-second")).toEqual({ state: "FAILED", reason: `trade ${no} was refunded under another refund number` });
    expect(await provider.queryRefund({ outTradeNo: no, refundNo: "r-second" })).toEqual({ state: "ABSENT" });
    expect(await provider.queryRefund({ outTradeNo: newOutTradeNo(), refundNo: "r" })).toEqual({ state: "ABSENT" });
  });
});

describe("the books unreachable", () => {
  it("is the provider unavailable, never a guess", async () => {
    const down = createAppRedis(
      { REDIS_URL: "redis://127.0.0.1:1/0", REDIS_CLUSTER_NODES: [] },
      { maxRetriesPerRequest: 0, commandTimeout: 200 },
    );
    down.on("error", () => {});
    try {
      const offline = sandboxProvider(env, new SandboxTrades(down, namespace));
      const no = newOutTradeNo();
      await expect(offline.queryTrade(no)).rejects.toBeInstanceOf(ProviderUnavailableError);
      await expect(offline.closeTrade(no)).rejects.toThrow(/sandbox: trade close got no answer/);
      await expect(
        offline.refund({ outTradeNo: no, providerTradeNo: "x", refundNo: "r", amountCents: 1, totalCents: 1, reason: "", notifyUrl: "" }),
      ).rejects.toBeInstanceOf(ProviderUnavailableError);
    } finally {
      down.disconnect();
    }
  });
});
