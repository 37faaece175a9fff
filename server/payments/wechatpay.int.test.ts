import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakeNotify, FakeProvider } from "../testing/fake-provider";
import { startFakeWechatPay, wechatPayConfigFromEnv } from "../testing/fake-wechatpay";
import { ProviderUnavailableError, type CheckoutRequest, type PaymentProvider } from "./provider";
import { wechatPayProvider } from "./wechatpay";

/**
 * WeChat Pay's own cases, beyond the provider-contract suite (provider-contract.int.test.ts): the
 * real adapter talking HTTP to the fake WeChat Pay server (signed requests, signed answers,
 * encrypted notifies). No database: a small server stands in for our notify route.
 */

/** Stands in for the notify route: verifies with the adapter and answers as it says. */
async function startNotifyReceiver(adapter: () => PaymentProvider) {
  const received: { body: string; headers: Headers; verdict: ReturnType<PaymentProvider["verifyNotification"]> }[] = [];
  let refuseNext = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const verdict = adapter().verifyNotification({ body, headers });
      received.push({ body, headers, verdict });
      const outcome = refuseNext > 0 ? (refuseNext--, "error" as const) : verdict.ok ? ("accepted" as const) : ("rejected" as const);
      const reply = adapter().reply(outcome);
      res.writeHead(reply.status, reply.body ? { "Content-Type": reply.contentType } : {}).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/payments/notify/wechatpay`,
    received,
    failNext: (count: number) => {
      refuseNext = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const newTradeNo = () => randomBytes(16).toString("hex");

describe("WeChat Pay adapter against its fake", () => {
  const start = startFakeWechatPay;
  let fake: FakeProvider;
  let adapter: PaymentProvider;
  let receiver: Awaited<ReturnType<typeof startNotifyReceiver>>;

  beforeAll(async () => {
    fake = await start();
    adapter = fake.adapter();
    receiver = await startNotifyReceiver(() => adapter);
  });
  afterAll(async () => {
    await receiver?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.setDown(false);
    fake.setRefundOutcome("SUCCEEDED");
    receiver.failNext(0);
  });

  function request(overrides: Partial<CheckoutRequest> = {}): CheckoutRequest {
    return {
      outTradeNo: newTradeNo(),
      amountCents: 9_900,
      subject: "秒杀 · 灯笼 ×1",
      notifyUrl: receiver.url,
      returnUrl: "http://127.0.0.1:3000/orders/42?paid=1",
      expiresAt: new Date(Date.now() + 30 * 60_000),
      device: "desktop",
      clientIp: "203.0.113.7",
      ...overrides,
    };
  }

  async function paidTrade(amountCents = 9_900): Promise<{ outTradeNo: string; notify: FakeNotify }> {
    const checkout = request({ amountCents });
    await adapter.checkout(checkout);
    const notify = await fake.pay(checkout.outTradeNo, { deliver: false });
    return { outTradeNo: checkout.outTradeNo, notify };
  }

  const verify = (notify: FakeNotify) => adapter.verifyNotification({ body: notify.body, headers: new Headers(notify.headers) });

  describe("checkout", () => {
    it("desktop: a Native code_url for the QR code, the trade open at the provider", async () => {
      const checkout = request();
      const action = await adapter.checkout(checkout);
      expect(action).toEqual({ kind: "qr", codeUrl: expect.stringMatching(/^weixin:\/\/wxpay\/bizpayurl\?pr=\w+$/) });
      expect(fake.trade(checkout.outTradeNo)).toMatchObject({ state: "UNPAID", amountCents: 9_900, notifyUrl: receiver.url });
      expect(fake.calls.at(-1)).toEqual({ api: "trade.native", outTradeNo: checkout.outTradeNo });
      // Presenting the same trade again shows the same code.
      expect(await adapter.checkout(checkout)).toEqual(action);
    });

    it("phone: the H5 page, which sends the buyer back to the return URL once paid", async () => {
      const checkout = request({ device: "phone" });
      const action = await adapter.checkout(checkout);
      if (action.kind !== "redirect") throw new Error(`expected a redirect, got ${action.kind}`);
      const page = new URL(action.url);
      expect(page.searchParams.get("redirect_url")).toBe(checkout.returnUrl);
      const html = await (await fetch(action.url)).text();
      expect(html).toContain("<button");
      expect(html).toContain(checkout.subject);

      const prepayId = page.searchParams.get("prepay_id")!;
      const paid = await fetch(`${fake.url}/_fake/pay-page`, {
        method: "POST",
        body: new URLSearchParams({ prepay_id: prepayId, redirect_url: checkout.returnUrl }),
        redirect: "manual",
      });
      expect(paid.status).toBe(303);
      expect(paid.headers.get("location")).toBe(checkout.returnUrl);
      expect(fake.trade(checkout.outTradeNo)?.state).toBe("PAID");
      const delivered = receiver.received.at(-1)!;
      expect(delivered.verdict).toMatchObject({ ok: true, event: { kind: "paid", outTradeNo: checkout.outTradeNo } });
    });

    it("cuts a long subject to WeChat's 127 bytes without splitting a character", async () => {
      const checkout = request({ subject: "灯".repeat(60) });
      await expect(adapter.checkout(checkout)).resolves.toMatchObject({ kind: "qr" });
    });

    it("a refused order is an error naming WeChat's code", async () => {
      const checkout = request();
      await adapter.checkout(checkout);
      await expect(adapter.checkout({ ...checkout, amountCents: 1 })).rejects.toThrow(/OUT_TRADE_NO_USED/);
    });
  });

  describe("notifies", () => {
    it.each([
      ["amount", { amountCents: 1 }, /signature/],
      ["signature", { badSignature: true }, /signature/],
      ["app id", { appId: "wx0000000000000000" }, /app wx0000000000000000/],
      ["merchant id", { mchId: "1900000000" }, /merchant 1900000000/],
      ["key id", { wrongKeyId: true }, /not the configured WeChat Pay public key/],
    ])("a notify with a tampered %s is refused with a reason", async (_what, tamper, reason) => {
      const { outTradeNo } = await paidTrade();
      const verdict = verify(fake.notifyFor(outTradeNo, tamper));
      expect(verdict).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    });
  });

  describe("trade close", () => {
    it("an expired trade cannot be paid", async () => {
      const checkout = request({ expiresAt: new Date(Date.now() - 1_000) });
      await adapter.checkout(checkout);
      await expect(fake.pay(checkout.outTradeNo)).rejects.toThrow(/expired/);
    });
  });

  describe("provider down", () => {
    it("an unreachable provider is unavailable too", async () => {
      const closed = await start({ seed: fake.seed });
      const gone = closed.adapter();
      await closed.close();
      await expect(gone.queryTrade(newTradeNo())).rejects.toBeInstanceOf(ProviderUnavailableError);
    });
  });

  describe("refunds", () => {
    async function refundOf(amountCents = 9_900) {
      const { outTradeNo } = await paidTrade(amountCents);
      return {
        outTradeNo,
        providerTradeNo: fake.trade(outTradeNo)!.providerTradeNo,
        refundNo: `R${newTradeNo()}`,
        amountCents,
        totalCents: amountCents,
        reason: "订单退款",
        notifyUrl: receiver.url,
      };
    }

    it("a refund notify verifies to kind refund", async () => {
      const refund = await refundOf(500);
      fake.setRefundOutcome("PENDING");
      await adapter.refund(refund);
      const before = receiver.received.length;
      await fake.completePendingRefunds();
      const notified = receiver.received.slice(before);
      expect(notified.map((delivery) => delivery.verdict)).toContainEqual({
        ok: true,
        event: {
          kind: "refund",
          notifyId: expect.any(String),
          sentAt: expect.any(Date),
          outTradeNo: refund.outTradeNo,
          refundNo: refund.refundNo,
          result: { state: "SUCCEEDED", providerRefundNo: expect.any(String) },
        },
      });
    });
  });

  describe("control over HTTP", () => {
    it("each control method is POST /_fake/<method>", async () => {
      const checkout = request();
      await adapter.checkout(checkout);
      const post = async (method: string, args: object) => {
        const response = await fetch(`${fake.url}/_fake/${method}`, { method: "POST", body: JSON.stringify(args) });
        expect(response.status).toBe(200);
        return response.json();
      };
      expect(await post("trade", { outTradeNo: checkout.outTradeNo })).toMatchObject({ state: "UNPAID" });
      const notify = (await post("pay", { outTradeNo: checkout.outTradeNo, deliver: false })) as FakeNotify;
      expect(verify(notify)).toMatchObject({ ok: true, event: { kind: "paid" } });
      await post("setDown", { down: true });
      await expect(adapter.queryTrade(checkout.outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
      await post("setDown", { down: false });
      expect(await adapter.queryTrade(checkout.outTradeNo)).toMatchObject({ state: "PAID" });
    });
  });
});

describe("WeChat Pay's authentication, both ways", () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeWechatPay();
  });
  afterAll(async () => {
    await fake?.close();
  });
  const otherPem = () => generateKeyPairSync("rsa", { modulusLength: 2048 });

  it("a request signed with another merchant key is refused (401 SIGN_ERROR): unavailable, never a guess", async () => {
    const { privateKey } = otherPem();
    const impostor = wechatPayProvider({
      ...wechatPayConfigFromEnv(fake.env),
      privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    });
    await expect(impostor.queryTrade(newTradeNo())).rejects.toThrow(/401 SIGN_ERROR/);
    await expect(
      impostor.refund({
        outTradeNo: newTradeNo(),
        providerTradeNo: "4200",
        refundNo: "R1",
        amountCents: 1,
        totalCents: 1,
        reason: "x",
        notifyUrl: "http://127.0.0.1/n",
      }),
    ).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it("an answer that does not verify with the configured platform key is not believed", async () => {
    const { publicKey } = otherPem();
    const fooled = wechatPayProvider({
      ...wechatPayConfigFromEnv(fake.env),
      platformPublicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
    });
    await expect(fooled.queryTrade(newTradeNo())).rejects.toThrow(/does not verify/);
    const wrongId = wechatPayProvider({ ...wechatPayConfigFromEnv(fake.env), platformPublicKeyId: "PUB_KEY_ID_0000" });
    await expect(wrongId.closeTrade(newTradeNo())).rejects.toThrow(/not the configured WeChat Pay public key/);
  });

  it("a fake started from another's seed has the same keys (an app configured for one trusts the other)", async () => {
    const twin = await startFakeWechatPay({ seed: fake.seed });
    try {
      const { WECHATPAY_BASE_URL: _a, ...mine } = fake.env;
      const { WECHATPAY_BASE_URL: _b, ...theirs } = twin.env;
      expect(theirs).toEqual(mine);
      const adapter = wechatPayProvider({ ...wechatPayConfigFromEnv(fake.env), baseUrl: twin.url });
      expect(await adapter.queryTrade(newTradeNo())).toEqual({ state: "ABSENT" });
    } finally {
      await twin.close();
    }
  });
});
