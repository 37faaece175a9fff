import { describe, expect, it } from "vitest";
import { sandboxProvider } from "./sandbox";
import { readSandboxCheckout, sandboxNotifyFields } from "./sandbox-gateway";

const env = { SANDBOX_PAY_APP_ID: "test-app", SANDBOX_PAY_KEY: "k".repeat(40), PUBLIC_BASE_URL: "http://127.0.0.1:3000" };
const provider = sandboxProvider(env);
const job = { outTradeNo: "42", tradeNo: "SBX-1", totalAmount: "99.00" };
const verify = (fields: Record<string, string>) => provider.verifyNotification({ body: new URLSearchParams(fields).toString(), headers: new Headers() });

describe("sandbox provider: notifications", () => {
  it("reads what the sandbox signed", () => {
    const now = new Date("2026-11-30T12:00:00.000Z");
    expect(verify(sandboxNotifyFields(env, job, { notifyId: "abcdef0123456789", now }))).toEqual({
      ok: true,
      notification: { notifyId: "abcdef0123456789", paymentId: 42, providerTradeNo: "SBX-1", amountCents: 9900, sentAt: now },
    });
  });

  it("says why it refuses", () => {
    expect(verify({ ...sandboxNotifyFields(env, job), total_amount: "1.00" })).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(sandboxNotifyFields(env, job, { appId: "other" }))).toEqual({ ok: false, reason: "notification for app other" });
    expect(verify(sandboxNotifyFields(env, { ...job, outTradeNo: "not-a-number" }))).toEqual({ ok: false, reason: "malformed notification" });
    expect(verify(sandboxNotifyFields(env, { ...job, totalAmount: "99" }))).toEqual({ ok: false, reason: "malformed notification" });
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
    paymentId: 42,
    amountCents: 9900,
    subject: "Lantern & co",
    notifyUrl: "http://127.0.0.1:3000/api/payments/notify",
    returnUrl: "/orders?order=7",
    expiresAt: new Date("2026-11-30T12:30:00.000Z"),
  };
  const paramsOf = async (r = request) => Object.fromEntries(new URL((await provider.checkout(r)).payUrl, "http://x").searchParams);

  it("is a same-origin address of the cashier carrying the signed request", async () => {
    const { payUrl } = await provider.checkout(request);
    expect(payUrl).toMatch(/^\/pay\/sandbox\?/);
    expect(readSandboxCheckout(env, await paramsOf())).toEqual({
      outTradeNo: "42",
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
    expect(readSandboxCheckout(env, await paramsOf({ ...request, returnUrl: "https://evil.example/" }))).toBeNull();
    expect(readSandboxCheckout(env, await paramsOf({ ...request, returnUrl: "/\\evil.example/" }))).toBeNull();
    // Signed by the merchant, yet notifying another address: the sandbox notifies this shop only.
    expect(readSandboxCheckout(env, await paramsOf({ ...request, notifyUrl: "http://127.0.0.1:9/steal" }))).toBeNull();
  });
});
