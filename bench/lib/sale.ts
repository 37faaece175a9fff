import { setTimeout as sleep } from "node:timers/promises";
import type { Services } from "../../server/platform/services";
import { createSale } from "../../server/testing/seed";
import { warmUpSale } from "../../server/warmup/warmup";
import { invariantViolations, readSaleLedger, type SaleLedger } from "../../server/recovery/invariants";
import type { CrowdRun } from "./crowd";

/** Sales for the bench, and what it checks of them afterwards, in MySQL and Redis directly. */

/** A sale's waiting room (bench/lib/room-run.ts): places admitted per second, order of arrival, challenge. */
export interface RoomSaleSettings {
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  purchaseChallenge: boolean;
}

export async function openSale(
  services: Services,
  input: { name: string; stock: number; unitLimit?: number; startsInMs?: number; stockBuckets?: number; room?: RoomSaleSettings },
) {
  const startsAt = new Date(Date.now() + (input.startsInMs ?? 0));
  const { saleId } = await createSale(services, {
    productName: input.name,
    description: "Created by npm run bench.",
    priceCents: 9900,
    originalPriceCents: 19900,
    stock: input.stock,
    unitLimit: input.unitLimit ?? 1,
    stockBuckets: input.stockBuckets,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 3 * 3600_000),
    ...input.room,
  });
  await warmUpSale(services, saleId);
  return { saleId, startsAt };
}

export async function ordersInMysql(services: Services, saleId: number): Promise<number> {
  return services.db.order.count({ where: { saleId } });
}

/**
 * How many of a sale's units MySQL has sold: total − the stock row. Every order commit deducts the
 * stock row in the same transaction, so while nothing is cancelled (no bench pays or lets a
 * deadline pass) this is the committed order count, read by primary key. A COUNT over the
 * growing orders table, polled every few ms, would compete with the very drain it times.
 */
async function soldInMysql(services: Services, saleId: number): Promise<number> {
  const [row] = (await services.sql.query(
    "SELECT s.total_stock - st.count AS sold FROM sales s JOIN stock st ON st.sale_id = s.id WHERE s.id = ?",
    [saleId],
  )) as {
    sold: number | bigint;
  }[];
  if (!row) throw new Error(`Sale ${saleId} has no stock row`);
  return Number(row.sold);
}

/**
 * Reads how many orders of a sale MySQL holds every `everyMs` from now until stop(), keeping when
 * each count was first seen, so "when was the last order in" is known to within `everyMs`.
 */
export function watchOrders(services: Services, saleId: number, everyMs = 100) {
  const seen: { at: number; orders: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const orders = await soldInMysql(services, saleId);
      if (!seen.length || seen[seen.length - 1]!.orders !== orders) seen.push({ at: Date.now(), orders });
      await sleep(everyMs);
    }
  })();
  return {
    /** epoch ms when the count first reached `orders`, or null */
    reachedAt: (orders: number) => seen.find((s) => s.orders >= orders)?.at ?? null,
    latest: () => seen[seen.length - 1]?.orders ?? 0,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Waits until the worker has written `expected` orders and nothing is pending; false on timeout. */
export async function waitForDrain(services: Services, saleId: number, expected: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // The full ledger only once the cheap count says the orders are in.
    if ((await soldInMysql(services, saleId)) < expected) {
      await sleep(50);
      continue;
    }
    const ledger = await readSaleLedger(services, saleId);
    if (ledger.activeOrders >= expected && ledger.pendingReservations === 0) return true;
    await sleep(200);
  }
  return false;
}

export interface Check {
  name: string;
  expected: string | number;
  actual: string | number;
  ok: boolean;
}

/**
 * The invariants of docs/architecture.md on the sale, plus what the crowd was told: exactly the
 * stock sold (when the crowd could buy it all), no oversell, nobody twice, and the QUEUED answers
 * are exactly the orders.
 */
export async function checkSale(
  services: Services,
  saleId: number,
  stock: number,
  crowd: Pick<CrowdRun, "queued">,
  crowdCouldSellOut: boolean,
) {
  const ledger: SaleLedger = await readSaleLedger(services, saleId);
  const violations = invariantViolations(ledger);
  const orders = await services.db.order.findMany({ where: { saleId }, select: { reservationId: true, userId: true } });
  const orderIds = new Set(orders.map((o) => o.reservationId));
  const queued = new Set(crowd.queued.map((q) => q.reservationId));
  const queuedWithoutOrder = [...queued].filter((id) => !orderIds.has(id)).length;
  const ordersWithoutAnswer = [...orderIds].filter((id) => !queued.has(id)).length;
  const duplicateBuyers = orders.length - new Set(orders.map((o) => o.userId)).size;
  const expectedOrders = crowdCouldSellOut ? stock : crowd.queued.length;
  const checks: Check[] = [
    {
      name: "ledger invariants (server/recovery/invariants.ts)",
      expected: "none",
      actual: violations.length ? violations.join("; ") : "none",
      ok: violations.length === 0,
    },
    { name: "orders in MySQL", expected: expectedOrders, actual: orders.length, ok: orders.length === expectedOrders },
    {
      name: "oversold units (orders beyond the stock)",
      expected: 0,
      actual: Math.max(0, orders.length - stock),
      ok: orders.length <= stock,
    },
    { name: "shoppers with two orders (unit limit 1)", expected: 0, actual: duplicateBuyers, ok: duplicateBuyers === 0 },
    { name: "MySQL stock", expected: stock - expectedOrders, actual: ledger.dbStock, ok: ledger.dbStock === stock - expectedOrders },
    {
      name: "Redis stock",
      expected: stock - expectedOrders,
      actual: ledger.redisStock ?? "missing",
      ok: ledger.redisStock === stock - expectedOrders,
    },
    { name: "pending reservations", expected: 0, actual: ledger.pendingReservations, ok: ledger.pendingReservations === 0 },
    { name: "QUEUED answers without an order", expected: 0, actual: queuedWithoutOrder, ok: queuedWithoutOrder === 0 },
    { name: "orders no shopper was told about", expected: 0, actual: ordersWithoutAnswer, ok: ordersWithoutAnswer === 0 },
  ];
  return { ok: checks.every((c) => c.ok), checks };
}
