import type { ChainableCommander } from "ioredis";
import type { Services } from "../services";
import { AppError } from "../errors";
import { saleKeys } from "./keys";
import { broadcastSoldOut } from "./sold-out";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "../orders/statuses";
import { parseReservationId } from "./reservation";
import { Prisma } from "../generated/prisma/client";
import { eligibilityTable, NON_DEFAULT_STANDING } from "../gateway/eligibility";

export interface WarmUpSummary {
  saleId: number;
  stock: number;
  pendingReservations: number;
  shoppersHolding: number;
  startsAt: Date;
  endsAt: Date;
  perUserLimit: number;
  /** Shoppers whose eligibility differs from a new account's (see gateway/eligibility.ts). */
  eligibilityOverrides: number;
}

/** Redis stock and per-user holdings derived from MySQL truth plus reservations not yet in MySQL. */
export function computeWarmState(input: {
  dbStock: number;
  orderCountsByUser: ReadonlyMap<number, number>;
  pendingNotInDb: readonly string[];
}): { stock: number; holdings: Map<number, number> } {
  const holdings = new Map(input.orderCountsByUser);
  for (const reservationId of input.pendingNotInDb) {
    const ref = parseReservationId(reservationId);
    if (ref) holdings.set(ref.userId, (holdings.get(ref.userId) ?? 0) + 1);
  }
  return { stock: Math.max(0, input.dbStock - input.pendingNotInDb.length), holdings };
}

const CHUNK = 1000;

/** A large hash written as several HSETs, so no single command carries a million fields. */
function hsetInChunks(tx: ChainableCommander, key: string, values: ReadonlyMap<number, number>) {
  const entries = [...values.entries()];
  for (let i = 0; i < entries.length; i += CHUNK) {
    tx.hset(key, Object.fromEntries(entries.slice(i, i + CHUNK)));
  }
}

/** A large set written as several SADDs, for the same reason. */
function saddInChunks(tx: ChainableCommander, key: string, members: readonly number[]) {
  for (let i = 0; i < members.length; i += CHUNK) tx.sadd(key, ...members.slice(i, i + CHUNK));
}

/**
 * Loads a sale into Redis (stock, window, per-user limit, who holds what) from MySQL, keeping
 * reservations still on their way to MySQL, and resets every instance's sold-out flag.
 * Safe to repeat at a quiet moment; re-warming under live traffic is the admin console's job.
 */
export async function warmUpSale(services: Services, saleId: number): Promise<WarmUpSummary> {
  const { db, redis, env } = services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  // Pending first, then MySQL in ONE snapshot (REPEATABLE READ): an order committed by a worker
  // meanwhile is either in both the stock count and the order lookup, or in neither, so no unit
  // is counted twice or not at all.
  const pending = await redis.zrange(keys.pending, 0, -1);
  const { sale, alreadyOrdered, alreadyReleased, released, grouped } = await db.$transaction(
    async (tx) => {
      const sale = await tx.sale.findUnique({
        where: { id: saleId },
        select: {
          id: true,
          startsAt: true,
          endsAt: true,
          perUserLimit: true,
          requireRealName: true,
          minMemberLevel: true,
          stock: { select: { count: true } },
        },
      });
      const inPending = { reservationId: { in: pending } };
      return {
        sale,
        alreadyOrdered: pending.length ? await tx.order.findMany({ where: inPending, select: { reservationId: true } }) : [],
        alreadyReleased: pending.length ? await tx.releasedReservation.findMany({ where: inPending, select: { reservationId: true } }) : [],
        // MySQL's stock already counts these orders' units as given back: a late release-3.lua run
        // (a timer retried after this warm-up) must find them released, or it would add them again.
        released: await tx.order.findMany({ where: { saleId, status: { in: [...RELEASED_ORDER_STATUSES] } }, select: { id: true } }),
        grouped: await tx.order.groupBy({
          by: ["userId"],
          where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } },
          _count: { _all: true },
        }),
      };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 30_000 },
  );
  if (!sale) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  if (!sale.stock) throw new AppError("PRECONDITION_FAILED", `Sale ${saleId} has no stock row.`);

  // Pending reservations that are already orders, or already released by check-back, are
  // decided in MySQL: they leave the pending set and count only through MySQL's numbers.
  const orderedIds = new Set([...alreadyOrdered, ...alreadyReleased].map((o) => o.reservationId));
  const pendingNotInDb = pending.filter((id) => !orderedIds.has(id));

  const { stock, holdings } = computeWarmState({
    dbStock: sale.stock.count,
    orderCountsByUser: new Map(grouped.map((g) => [g.userId, g._count._all])),
    pendingNotInDb,
  });

  const standings = await db.user.findMany({
    where: NON_DEFAULT_STANDING,
    select: { id: true, memberLevel: true, realNameVerified: true, blacklisted: true },
  });
  const eligibility = eligibilityTable(standings, sale);

  const tx = redis.multi();
  tx.set(keys.stock, stock);
  tx.del(keys.meta);
  tx.hset(keys.meta, {
    startsAt: sale.startsAt.getTime(),
    endsAt: sale.endsAt.getTime(),
    limit: sale.perUserLimit,
    eligibility: eligibility.defaultCode,
  });
  tx.del(keys.users);
  hsetInChunks(tx, keys.users, holdings);
  tx.del(keys.eligibility);
  hsetInChunks(tx, keys.eligibility, eligibility.overrides);
  tx.del(keys.released);
  saddInChunks(tx, keys.released, released.map((o) => o.id));
  if (orderedIds.size) tx.zrem(keys.pending, ...orderedIds);
  await tx.exec();

  await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: stock <= 0 });
  return {
    saleId,
    stock,
    pendingReservations: pendingNotInDb.length,
    shoppersHolding: holdings.size,
    startsAt: sale.startsAt,
    endsAt: sale.endsAt,
    perUserLimit: sale.perUserLimit,
    eligibilityOverrides: eligibility.overrides.size,
  };
}
