import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWeb, startWorker, waitFor, type ChildHandle, type TestEnvironment } from "./harness";
import { CHAOS_SETTINGS, crowdBuys, newChaosSale, report, settleAndCheck } from "./chaos";
import { startPayment } from "../payments/pay";
import { confirmSandboxCheckout } from "../payments/sandbox-gateway";
import { freePort } from "../lib/net";

/**
 * Chaos: a payment notification and the pay-deadline cancellation racing for the same orders,
 * while the worker holding the cancel jobs freezes past its job locks (a long GC pause, a
 * starved CPU) and a second worker runs those jobs again.
 */

let t: TestEnvironment;
let webPort: number;
const children: ChildHandle[] = [];
beforeAll(async () => {
  // The web's address is the shop's (PUBLIC_BASE_URL) in every process from the start: the
  // sandbox adapter, built with the env, returns buyers and sends notifies there only.
  webPort = await freePort();
  t = await createTestEnvironment("chaos_lifecycle", {
    PUBLIC_BASE_URL: `http://127.0.0.1:${webPort}`,
    ...CHAOS_SETTINGS,
    ORDER_PAY_TIMEOUT_SECONDS: "10",
    ORDER_SWEEP_INTERVAL_SECONDS: "2",
    WORKER_LOCK_MS: "2000",
    WORKER_STALLED_INTERVAL_MS: "1000",
  });
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop("SIGKILL")));
  await t?.cleanup();
});

describe("chaos: order lifecycle", () => {
  it("payment notify and cancellation racing under a stalled worker: one winner per order, each unit back once", async () => {
    const web = await startWeb(t.childEnv, {}, { port: webPort });
    const frozen = await startWorker(t.childEnv, {}, [], ["worker-stall-cancel"]);
    children.push(web, frozen);
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 40, shoppers: 40, name: "payrace" });
    const answers = await crowdBuys(() => web.url, saleId, shoppers);
    await settleAndCheck(t.services, saleId, answers, Date.now());

    // Every buyer opens the cashier; the notify URL is the running web instance (PUBLIC_BASE_URL).
    const orders = await t.services.db.order.findMany({ where: { saleId }, select: { id: true, userId: true, payDeadline: true } });
    const checkouts = await Promise.all(
      orders.map(async (o) => {
        const { action } = await startPayment(t.services, { userId: o.userId, orderId: o.id, device: "desktop", clientIp: "127.0.0.1" });
        return Object.fromEntries(new URL(action.kind === "redirect" ? action.url : "", web.url).searchParams);
      }),
    );
    // Confirm just before the first deadline, so deliveries and timers arrive together.
    const firstDeadline = Math.min(...orders.map((o) => o.payDeadline.getTime()));
    await new Promise((r) => setTimeout(r, Math.max(0, firstDeadline - 700 - Date.now())));
    await Promise.allSettled(checkouts.map((params, i) => confirmSandboxCheckout(t.services, { params, userId: orders[i]!.userId })));

    // The frozen worker takes the first cancel jobs and stops; a second one finds them stalled.
    await waitFor(async () => (await t.services.queues.cancelOrder.getActiveCount()) > 0, 60_000, "a cancel job to be taken");
    const rescuer = await startWorker(t.childEnv);
    children.push(rescuer);
    const faultEnded = Date.now();

    await waitFor(
      async () => {
        const open = await t.services.db.order.count({ where: { saleId, status: "WAIT_PAY" } });
        const refunding = await t.services.db.payment.count({ where: { order: { saleId }, status: "REFUND_PENDING" } });
        return open === 0 && refunding === 0;
      },
      120_000,
      "every order to be decided and every late payment refunded",
    );
    const outcome = await settleAndCheck(t.services, saleId, answers, faultEnded);
    const final = await t.services.db.order.findMany({
      where: { saleId },
      select: { status: true, payments: { select: { status: true } } },
    });
    const byStatus = Object.fromEntries(["PAID", "CANCELLED", "REFUNDED"].map((s) => [s, final.filter((o) => o.status === s).length]));
    report(`pay vs cancel under a stalled worker (${JSON.stringify(byStatus)})`, outcome);
    expect(frozen.output()).toContain("fault hook: blocking the event loop");
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [] });
    // One winner per order: paid money is kept only on a paid order, and a cancelled order's late
    // payment went back.
    for (const o of final) {
      if (o.status === "PAID") expect(o.payments[0]?.status).toBe("SUCCEEDED");
      if (o.status === "REFUNDED") expect(o.payments[0]?.status).toBe("REFUNDED");
      if (o.status === "CANCELLED") expect(o.payments[0]?.status).toBe("CREATED");
    }
  });
});
