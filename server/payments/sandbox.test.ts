import { describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { sandboxProvider } from "./sandbox";
import type { PayDevice } from "./provider";
import { readSandboxCheckout, sandboxNotifyFields } from "./sandbox-gateway";
import { SandboxTrades } from "./sandbox-trades";
import { signed } from "./signature";

const env = { SANDBOX_PAY_APP_ID: "test-app", SANDBOX_PAY_KEY: "k".repeat(40), PUBLIC_BASE_URL: "http://127.0.0.1:3000" };
// Checkout and notify reading need no I/O: the books' connection is never opened here
// (query, close and refund are sandbox.int.test.ts's).
const provider = sandboxProvider(env, new SandboxTrades(new Redis({ lazyConnect: true }), "unit"));
const outTradeNo = "0123456789abcdef0123456789abcdef";
const job = { outTradeNo, tradeNo: "SBX-1", totalAmount: "99.00" };
const verify = (fields: Record<string, string>) =>
  provider.verifyNotification({ body: new URLSearchParams(fields).toString(), headers: new Headers() });

describe("sandbox provider: notifications", () => {
  it("reads what the sandbox signed", () => {
    const now = new Date("2026-11-30T12:00:00.000Z");
    expect(verify(sandboxNotifyFields(env, job, { notifyId: "abcdef0123456789", now }))).toEqual({
      ok: true,
      event: { kind: "paid", notifyId: "abcdef0123456789", outTradeNo, providerTradeNo: "SBX-1", amountCents: 9900, sentAt: now },
    });
  });

  it("says why it refuses", () => {
    expect(verify({ ...sandboxNotifyFields(env, job), total_amount: "1.00" })).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(sandboxNotifyFields(env, job, { appId: "other" }))).toEqual({ ok: false, reason: "notification for app other" });
    // Ours are 32 hex digits; an old sequential payment id is no trade of ours.
    expect(verify(sandboxNotifyFields(env, { ...job, outTradeNo: "42" }))).toEqual({ ok: false, reason: "malformed notification" });
    expect(verify(sandboxNotifyFields(env, { ...job, outTradeNo: outTradeNo.toUpperCase() }))).toEqual({
      ok: false,
      reason: "malformed notification",
    });
    expect(verify(sandboxNotifyFields(env, { ...job, totalAmount: "99" }))).toEqual({ ok: false, reason: "malformed notification" });
  });

  it("accepts an authentic trade status with nothing to do, refuses an unknown one", () => {
    const withStatus = (trade_status: string) => {
      const { sign: _sign, sign_type: _type, ...fields } = sandboxNotifyFields(env, job);
      return verify(signed({ ...fields, trade_status }, env.SANDBOX_PAY_KEY));
    };
    expect(withStatus("TRADE_CLOSED")).toEqual({ ok: true, event: { kind: "ignored", reason: "trade_status TRADE_CLOSED" } });
    expect(withStatus("WAIT_BUYER_PAY")).toMatchObject({ ok: true, event: { kind: "ignored" } });
    expect(withStatus("TRADE_PAID_MAYBE")).toEqual({ ok: false, reason: "unsupported trade_status TRADE_PAID_MAYBE" });
  });

  it("gives every delivery its own notify id", () => {
    expect(sandboxNotifyFields(env, job).notify_id).not.toBe(sandboxNotifyFields(env, job).notify_id);
  });

  it("answers in Alipay's protocol", () => {
    expect(provider.reply("accepted")).toMatchObject({ status: 200, body: "success" });
    expect(provider.reply("rejected")).toMatchObject({ status: 400, body: "fail" });
    expect(provider.reply("error")).toMatchObject({ status: 500, body: "fail" });
  });
});

describe("sandbox provider: checkout", () => {
  const request = {
    outTradeNo,
    amountCents: 9900,
    subject: "Lantern & co",
    notifyUrl: "http://127.0.0.1:3000/api/payments/notify",
    returnUrl: "http://127.0.0.1:3000/orders?order=7",
    expiresAt: new Date("2026-11-30T12:30:00.000Z"),
    device: "desktop" as PayDevice,
    clientIp: "203.0.113.7",
  };
  const urlOf = async (r = request) => {
    const action = await provider.checkout(r);
    if (action.kind !== "redirect") throw new Error(`the sandbox answered ${action.kind}`);
    return action.url;
  };
  const paramsOf = async (r = request) => Object.fromEntries(new URL(await urlOf(r), "http://x").searchParams);

  it("is a same-origin address of the cashier carrying the signed request", async () => {
    expect(await urlOf()).toMatch(/^\/pay\/sandbox\?/);
    expect(await urlOf({ ...request, device: "phone" })).toBe(await urlOf());
    expect(readSandboxCheckout(env, await paramsOf())).toEqual({
      outTradeNo,
      totalAmount: "99.00",
      amountCents: 9900,
      subject: "Lantern & co",
      returnUrl: "/orders?order=7",
      expiresAt: request.expiresAt,
    });
  });

  it("the cashier refuses a request it cannot trust, or one sending the buyer off-site", async () => {
    expect(readSandboxCheckout(env, { ...(await paramsOf()), subject: "Something else" })).toBeNull();
    expect(readSandboxCheckout({ ...env, SANDBOX_PAY_KEY: "x".repeat(40) }, await paramsOf())).toBeNull();
    expect(readSandboxCheckout(env, await paramsOf({ ...request, returnUrl: "//evil.example/" }))).toBeNull();
    const { sign: _sign, sign_type: _type, ...fields } = await paramsOf();
    expect(readSandboxCheckout(env, signed({ ...fields, return_url: "https://evil.example/" }, env.SANDBOX_PAY_KEY))).toBeNull();
    expect(readSandboxCheckout(env, await paramsOf({ ...request, returnUrl: "/\\evil.example/" }))).toBeNull();
    // Signed by the merchant, yet notifying another address: the sandbox notifies this shop only.
    expect(readSandboxCheckout(env, await paramsOf({ ...request, notifyUrl: "http://127.0.0.1:9/steal" }))).toBeNull();
    // Not one of our trade numbers.
    expect(readSandboxCheckout(env, await paramsOf({ ...request, outTradeNo: "42" }))).toBeNull();
  });

  it("sends the buyer back to this shop only", async () => {
    await expect(provider.checkout({ ...request, returnUrl: "https://evil.example/orders" })).rejects.toThrow(/this shop only/);
  });
});
