import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeProvider } from "../testing/fake-provider";
import { FAKE_PROVIDERS } from "../testing/fake-providers";
import {
  ProviderUnavailableError,
  type NotifyEvent,
  type NotifyOutcome,
  type NotifyVerdict,
  type PayDevice,
  type PaymentProvider,
  type RefundRequest,
} from "./provider";

/**
 * The contract every payment adapter keeps, run against each provider's fake over real HTTP:
 * the real adapter and its SDK on one side, a server speaking the provider's wire protocol on
 * the other. No database: what the adapter answers is checked against what the fake holds.
 * Only FakeProvider and PaymentProvider calls, so every provider runs through this file as is.
 *
 * NotifyTamper as used here: amountCents and badSignature alter a notify after it was signed;
 * appId (and mchId) are notifies signed genuinely for someone else's app (merchant), so the
 * adapter's own id check is what refuses them; wrongKeyId is signed with a key that is not the
 * configured provider key.
 */
describe.each(FAKE_PROVIDERS)("$name adapter against its fake", ({ start, checksMerchantId }) => {
  let fake: FakeProvider;
  let adapter: PaymentProvider;
  let shop: NotifyReceiver;

  beforeAll(async () => {
    fake = await start();
    adapter = fake.adapter();
    shop = await startNotifyReceiver(() => adapter);
  });

  afterAll(async () => {
    await shop?.close();
    await fake?.close();
  });

  /** A trade as a buyer starts it: checkout, then the page opened (or the QR code shown). */
  async function openTrade(amountCents = 1234, device: PayDevice = "desktop"): Promise<string> {
    const outTradeNo = randomBytes(16).toString("hex");
    const action = await adapter.checkout({
      outTradeNo,
      amountCents,
      subject: "Flash sale: 1 × Yixing teapot",
      notifyUrl: shop.url,
      returnUrl: "http://127.0.0.1:9/orders/1",
      expiresAt: new Date(Date.now() + 15 * 60_000),
      device,
      clientIp: "203.0.113.7",
    });
    if (action.kind === "redirect") {
      const page = await fetch(action.url);
      expect(page.status, await page.clone().text()).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
    } else {
      expect(action.codeUrl).toMatch(/^\S+$/);
    }
    return outTradeNo;
  }

  async function paidTrade(amountCents = 1234): Promise<{ outTradeNo: string; providerTradeNo: string }> {
    const outTradeNo = await openTrade(amountCents);
    await fake.pay(outTradeNo, { deliver: false });
    return { outTradeNo, providerTradeNo: fake.trade(outTradeNo)!.providerTradeNo };
  }

  function refundOf(trade: { outTradeNo: string; providerTradeNo: string }, amountCents = 1234): RefundRequest {
    return {
      outTradeNo: trade.outTradeNo,
      providerTradeNo: trade.providerTradeNo,
      refundNo: randomBytes(16).toString("hex"),
      amountCents,
      totalCents: amountCents,
      reason: "Refunded by the shop",
      notifyUrl: shop.url,
    };
  }

  function verify(notify: { body: string; headers: Record<string, string> }): NotifyVerdict {
    return adapter.verifyNotification({ body: notify.body, headers: new Headers(notify.headers) });
  }

  describe("checkout", () => {
    it.each(["desktop", "phone"] as const)("on a %s answers an action the provider accepts", async (device) => {
      const outTradeNo = await openTrade(9900, device);
      expect(fake.trade(outTradeNo)).toMatchObject({ outTradeNo, amountCents: 9900, state: "UNPAID", notifyUrl: shop.url, refunds: [] });
    });
  });

  describe("notifies", () => {
    it("a paid trade's notify verifies and reads as paid", async () => {
      const outTradeNo = await openTrade(4321);
      const notify = await fake.pay(outTradeNo, { deliver: false });
      const verdict = verify(notify);
      expect(verdict).toEqual({
        ok: true,
        event: {
          kind: "paid",
          notifyId: expect.any(String),
          sentAt: expect.any(Date),
          outTradeNo,
          providerTradeNo: fake.trade(outTradeNo)!.providerTradeNo,
          amountCents: 4321,
        },
      });
      if (verdict.ok && verdict.event.kind === "paid") expect(Math.abs(verdict.event.sentAt.getTime() - Date.now())).toBeLessThan(60_000);
    });

    it("is delivered to the notify URL and answered as the provider expects", async () => {
      const outTradeNo = await openTrade();
      await fake.pay(outTradeNo);
      const delivered = shop.paidNotifiesOf(outTradeNo);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toMatchObject({ kind: "paid", outTradeNo, amountCents: 1234 });
    });

    it("is delivered again until accepted, with the same notify id", async () => {
      const outTradeNo = await openTrade();
      shop.nextOutcomes.push("error", "error");
      await fake.pay(outTradeNo, { attempts: 5 });
      const delivered = shop.paidNotifiesOf(outTradeNo);
      expect(delivered).toHaveLength(3);
      expect(new Set(delivered.map((event) => event.notifyId)).size).toBe(1);
    });

    it("a notify sent again (a replay) carries the same notify id", async () => {
      const outTradeNo = await openTrade();
      const first = verify(await fake.pay(outTradeNo, { deliver: false }));
      const again = verify(fake.notifyFor(outTradeNo));
      expect(first.ok && again.ok).toBe(true);
      if (first.ok && again.ok && first.event.kind === "paid" && again.event.kind === "paid")
        expect(again.event.notifyId).toBe(first.event.notifyId);
    });

    const forgeries = [
      ["an amount changed after signing", { amountCents: 1 }],
      ["a broken signature", { badSignature: true }],
      ["another app's notify", { appId: "not-our-app-000000" }],
      ["a key that is not the provider's", { wrongKeyId: true }],
      ...(checksMerchantId ? [["another merchant's notify", { mchId: "1900000000" }] as const] : []),
    ] as const;

    it.each(forgeries)("refuses %s, with a reason", async (_, tamper) => {
      const { outTradeNo } = await paidTrade();
      expect(verify(fake.notifyFor(outTradeNo)).ok).toBe(true);
      const verdict = verify(fake.notifyFor(outTradeNo, tamper));
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason.length).toBeGreaterThan(3);
    });

    it.skipIf(checksMerchantId)("(no merchant id of its own to check on notifies)", () => {});

    it("refuses a body that is not a notify at all", () => {
      for (const body of ["", "{}", "hello", "a=1&a=2"]) {
        const verdict = adapter.verifyNotification({ body, headers: new Headers({ "content-type": "application/x-www-form-urlencoded" }) });
        expect(verdict.ok).toBe(false);
      }
    });
  });

  describe("queryTrade", () => {
    it("PAID with the provider's trade number and the amount", async () => {
      const trade = await paidTrade(2500);
      expect(await adapter.queryTrade(trade.outTradeNo)).toEqual({
        state: "PAID",
        providerTradeNo: trade.providerTradeNo,
        amountCents: 2500,
      });
    });

    it("UNPAID for an open trade", async () => {
      expect(await adapter.queryTrade(await openTrade())).toEqual({ state: "UNPAID" });
    });

    it("ABSENT for a trade the provider never had", async () => {
      expect(await adapter.queryTrade(randomBytes(16).toString("hex"))).toEqual({ state: "ABSENT" });
    });

    it("CLOSED for a closed trade", async () => {
      const outTradeNo = await openTrade();
      expect(await adapter.closeTrade(outTradeNo)).toBe("CLOSED");
      expect(await adapter.queryTrade(outTradeNo)).toEqual({ state: "CLOSED" });
    });
  });

  describe("closeTrade", () => {
    it("CLOSED for an open trade, which can then no longer be paid", async () => {
      const outTradeNo = await openTrade();
      expect(await adapter.closeTrade(outTradeNo)).toBe("CLOSED");
      expect(fake.trade(outTradeNo)?.state).toBe("CLOSED");
      await expect(fake.pay(outTradeNo, { deliver: false })).rejects.toThrow();
    });

    it("CLOSED again for a closed trade, and for one the provider never had", async () => {
      const outTradeNo = await openTrade();
      await adapter.closeTrade(outTradeNo);
      expect(await adapter.closeTrade(outTradeNo)).toBe("CLOSED");
      expect(await adapter.closeTrade(randomBytes(16).toString("hex"))).toBe("CLOSED");
    });

    it("PAID for a paid trade, which stays paid", async () => {
      const { outTradeNo } = await paidTrade();
      expect(await adapter.closeTrade(outTradeNo)).toBe("PAID");
      expect(fake.trade(outTradeNo)?.state).toBe("PAID");
    });
  });

  describe("provider down", () => {
    it("every call is a ProviderUnavailableError, never a guess", async () => {
      const trade = await paidTrade();
      fake.setDown(true);
      try {
        await expect(adapter.queryTrade(trade.outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
        await expect(adapter.closeTrade(trade.outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
        const refund = refundOf(trade);
        await expect(adapter.refund(refund)).rejects.toBeInstanceOf(ProviderUnavailableError);
        await expect(adapter.queryRefund(refund)).rejects.toBeInstanceOf(ProviderUnavailableError);
      } finally {
        fake.setDown(false);
      }
      expect(fake.trade(trade.outTradeNo)).toMatchObject({ state: "PAID", refunds: [] });
      expect(await adapter.queryTrade(trade.outTradeNo)).toMatchObject({ state: "PAID" });
    });
  });

  describe("refunds", () => {
    it("SUCCEEDED: the money goes back once, and the query agrees", async () => {
      const trade = await paidTrade();
      const refund = refundOf(trade);
      expect(await adapter.refund(refund)).toMatchObject({ state: "SUCCEEDED", providerRefundNo: expect.any(String) });
      expect(await adapter.queryRefund(refund)).toMatchObject({ state: "SUCCEEDED" });
      expect(fake.trade(trade.outTradeNo)?.refunds).toEqual([{ refundNo: refund.refundNo, amountCents: 1234, state: "SUCCEEDED" }]);
    });

    it("asking twice refunds once", async () => {
      const trade = await paidTrade();
      const refund = refundOf(trade);
      expect((await adapter.refund(refund)).state).toBe("SUCCEEDED");
      expect((await adapter.refund(refund)).state).toBe("SUCCEEDED");
      expect(fake.trade(trade.outTradeNo)?.refunds).toHaveLength(1);
    });

    it("FAILED with the provider's reason; asking again once it would succeed refunds", async () => {
      const trade = await paidTrade();
      const refund = refundOf(trade);
      fake.setRefundOutcome("FAILED");
      try {
        const failed = await adapter.refund(refund);
        expect(failed.state).toBe("FAILED");
        if (failed.state === "FAILED") expect(failed.reason.length).toBeGreaterThan(3);
        expect(["ABSENT", "FAILED"]).toContain((await adapter.queryRefund(refund)).state);
      } finally {
        fake.setRefundOutcome("SUCCEEDED");
      }
      expect((await adapter.refund(refund)).state).toBe("SUCCEEDED");
      expect(fake.trade(trade.outTradeNo)?.refunds).toEqual([{ refundNo: refund.refundNo, amountCents: 1234, state: "SUCCEEDED" }]);
    });

    it("PENDING, then SUCCEEDED on query once the provider finishes it", async () => {
      const trade = await paidTrade();
      const refund = refundOf(trade);
      fake.setRefundOutcome("PENDING");
      try {
        expect(await adapter.refund(refund)).toEqual({ state: "PENDING" });
        expect(await adapter.queryRefund(refund)).toEqual({ state: "PENDING" });
      } finally {
        fake.setRefundOutcome("SUCCEEDED");
      }
      await fake.completePendingRefunds();
      expect(await adapter.queryRefund(refund)).toMatchObject({ state: "SUCCEEDED" });
      expect(fake.trade(trade.outTradeNo)?.refunds).toEqual([{ refundNo: refund.refundNo, amountCents: 1234, state: "SUCCEEDED" }]);
    });

    it("queryRefund: ABSENT for a refund never asked for", async () => {
      const trade = await paidTrade();
      expect(await adapter.queryRefund(refundOf(trade))).toEqual({ state: "ABSENT" });
    });
  });
});

interface NotifyReceiver {
  url: string;
  /** The paid events the adapter read from deliveries for one trade, in order. */
  paidNotifiesOf(outTradeNo: string): Extract<NotifyEvent, { kind: "paid" }>[];
  /** How the next deliveries are answered (then "accepted" for authentic ones). */
  nextOutcomes: NotifyOutcome[];
  close(): Promise<void>;
}

/** The shop's notify endpoint in miniature: verify with the adapter, answer with its reply. */
async function startNotifyReceiver(adapter: () => PaymentProvider): Promise<NotifyReceiver> {
  const received: NotifyVerdict[] = [];
  const nextOutcomes: NotifyOutcome[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
      const verdict = adapter().verifyNotification({ body: Buffer.concat(chunks).toString("utf8"), headers });
      received.push(verdict);
      const outcome = verdict.ok ? (nextOutcomes.shift() ?? "accepted") : "rejected";
      const reply = adapter().reply(outcome);
      response.writeHead(reply.status, { "content-type": reply.contentType });
      response.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/payments/notify`,
    paidNotifiesOf: (outTradeNo) =>
      received.flatMap((verdict) =>
        verdict.ok && verdict.event.kind === "paid" && verdict.event.outTradeNo === outTradeNo ? [verdict.event] : [],
      ),
    nextOutcomes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
