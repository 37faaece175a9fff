import type { ChainableCommander } from "ioredis";
import { clusterReady, type RedisConnection } from "../clients/redis";
import type { Services } from "../services";
import { Prisma } from "../generated/prisma/client";
import { AppError } from "../errors";
import { saleKeys } from "./keys";
import { broadcastSoldOut } from "./sold-out";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "../orders/statuses";
import { parseReservationId } from "./reservation";
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

/** How often a warm-up re-reads and retries when purchases change the sale under it. */
const WARM_UP_ATTEMPTS = 5;

export interface WarmUpOptions {
  /** Test seam: runs after everything is read, just before the Redis transaction. */
  beforeWrite?: () => Promise<void>;
}

/**
 * Loads a sale into Redis (stock, window, per-user limit, who holds what) from MySQL, keeping
 * reservations still on their way to MySQL, and resets every instance's sold-out flag.
 *
 * Safe on a running sale: the write is a MULTI under WATCH of the sale's stock and pending keys,
 * read BEFORE MySQL. A reservation, an order settling or a unit released between the reads and
 * the write changes one of them, the MULTI is dropped and everything is read again; a sale that
 * keeps changing is refused (CONFLICT, nothing written) rather than loaded with a stock that
 * forgets units sold meanwhile. Reading pending first matters: an order committed after that
 * read is in MySQL's stock and in the order lookup alike, or in neither.
 */
export async function warmUpSale(services: Services, saleId: number, options: WarmUpOptions = {}): Promise<WarmUpSummary> {
  // WATCH belongs to a connection: a dedicated one, so other requests' commands cannot clear it.
  const connection = services.redis.duplicate();
  try {
    await clusterReady(connection, services.env.REDIS_COMMAND_TIMEOUT_MS);
    for (let attempt = 1; attempt <= WARM_UP_ATTEMPTS; attempt++) {
      const summary = await tryWarmUp(services, connection, saleId, options);
      if (summary) {
        await broadcastSoldOut(services.redis, services.env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: summary.stock <= 0 });
        return summary;
      }
    }
  } finally {
    connection.disconnect();
  }
  throw new AppError(
    "CONFLICT",
    `Sale ${saleId} changed under ${WARM_UP_ATTEMPTS} warm-up attempts in a row (purchases still settling); nothing was changed. Try again in a moment.`,
  );
}

/** One read-then-write round; null when a watched key changed and nothing was written. */
async function tryWarmUp(services: Services, connection: RedisConnection, saleId: number, options: WarmUpOptions): Promise<WarmUpSummary | null> {
  const { db, env } = services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  await connection.watch(keys.stock, keys.pending);
  const pending = await connection.zrange(keys.pending, 0, -1);

  // Pending first (above, under WATCH), then MySQL in ONE snapshot (REPEATABLE READ): an order
  // committed by a worker meanwhile is either in both the stock count and the order lookup, or
  // in neither, so no unit is counted twice or not at all.
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
  if (!sale || !sale.stock) {
    await connection.unwatch();
    if (!sale) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
    throw new AppError("PRECONDITION_FAILED", `Sale ${saleId} has no stock row.`);
  }
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

  await options.beforeWrite?.();
  const tx = connection.multi();
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
  // null: a watched key changed since the reads, and Redis dropped the whole transaction.
  if ((await tx.exec()) === null) return null;

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
