import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWeb, startWorker, waitFor, type ChildHandle, type TestEnvironment } from "./harness";
import { CHAOS_SETTINGS, buyUntilAnswered, crowdBuys, newChaosSale, report, settleAndCheck } from "./chaos";

/**
 * Chaos: process faults on a real sale (HTTP into `next start`, worker processes). Each scenario
 * injects one fault and then requires: invariants true, 0 oversold, 0 duplicate orders, every
 * QUEUED answer ended as exactly one order or one release; the recovery time is printed. A job
 * delivered again is server/orders/create-orders.int.test.ts's: once in one batch, again later, and
 * redelivered by BullMQ after a worker died between commit and acknowledgement.
 */

let t: TestEnvironment;
let web: ChildHandle & { url: string };
let worker: ChildHandle | undefined;
const children: ChildHandle[] = [];
async function runningWorker(): Promise<ChildHandle> {
  if (worker && worker.process.exitCode === null && worker.process.signalCode === null) return worker;
  worker = await startWorker(t.childEnv);
  children.push(worker);
  return worker;
}
beforeAll(async () => {
  t = await createTestEnvironment("chaos_processes", CHAOS_SETTINGS);
  web = await startWeb(t.childEnv);
  children.push(web);
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop("SIGKILL")));
  await t?.cleanup();
});

const orderCount = (saleId: number) => t.services.db.order.count({ where: { saleId } });

describe("chaos: processes", () => {
  it("worker SIGKILLed three times during the drain, restarted each time", async () => {
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 200, shoppers: 240, name: "workerkill" });
    // Everyone buys first, so the drain is all ahead of the worker when the kills begin.
    const answers = await crowdBuys(() => web.url, saleId, shoppers);
    expect(answers.filter((a) => a.kind === "queued")).toHaveLength(200);

    await runningWorker();
    let kills = 0;
    for (; kills < 3; kills++) {
      const before = await orderCount(saleId);
      if (before >= 200) break;
      await waitFor(async () => (await orderCount(saleId)) > before, 60_000, "the drain to move");
      await worker!.stop("SIGKILL");
      await runningWorker();
    }
    const faultEnded = Date.now();
    expect(kills).toBe(3);
    const outcome = await settleAndCheck(t.services, saleId, answers, faultEnded);
    report("worker SIGKILLed x3", outcome);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [], orders: 200, released: 0 });
  });

  it("the web process killed between the Lua reservation and Queue.add", async () => {
    await runningWorker();
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 100, shoppers: 120, name: "webkill" });
    const doomed = await startWeb(t.childEnv, {}, { faults: ["crash-before-enqueue"] });
    children.push(doomed);
    let base = doomed.url;
    const first = await crowdBuys(() => base, saleId, shoppers.slice(0, 60));
    expect(await doomed.exited).toBe("SIGKILL");
    expect(doomed.output()).toContain("fault hook: dying between the reservation and its create-order job");
    const faultEnded = Date.now();
    // Shoppers whose request died ask again on the surviving instance, with everyone else.
    base = web.url;
    const retried = new Set(
      shoppers
        .slice(0, 60)
        .filter((_, i) => first[i]!.kind === "error")
        .map((s) => s.id),
    );
    const rest = await buyUntilAnswered(
      () => base,
      saleId,
      shoppers.filter((s, i) => i >= 60 || retried.has(s.id)),
    );
    const answers = [...first.filter((a) => a.kind !== "error"), ...rest.answers];
    const outcome = await settleAndCheck(t.services, saleId, answers, faultEnded);
    report("web killed between reservation and Queue.add", outcome);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [] });
    // The reservation(s) the dead process made were recovered by check-back, answered or not.
    expect(outcome.unansweredOrders + outcome.released).toBeGreaterThanOrEqual(1);
  });
});
