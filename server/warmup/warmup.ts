import type { ChainableCommander } from "ioredis";
import { clusterReady, type RedisConnection } from "../clients/redis";
import type { CoreServices } from "../platform/services";
import { Prisma } from "../generated/prisma/client";
import { AppError } from "../platform/errors";
import { saleDoesNotExist } from "../platform/common-sentences";
import { bucketKeys } from "../sale-redis/keys";
import { broadcastSoldOut } from "../seckill/sold-out";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "../orders/statuses";
import { parseReservationId, reservationInBucket } from "../seckill/reservation";
import { activeByBucket, bucketStockInDb, homeBucket } from "../sale-redis/buckets";
import {
  ELIGIBILITY_RULE_FIELDS,
  eligibilityTable,
  nonDefaultStanding,
  STANDING_FIELDS,
  type EligibilityCode,
  type EligibilityRules,
  type Standing,
} from "../sale-redis/eligibility";
import { personField, personOfField } from "../sale-redis/keys";
import { withStockChangeLock } from "../stock/change-lock";
import { loadRoom, roomSettingsOf, type RoomLoadResult } from "../room/room-meta";
import { sentence } from "../platform/sentences/sentence";

/** What a warm-up needs. */
export type WarmUpServices = Pick<CoreServices, "db" | "sql" | "redis" | "env" | "soldOut">;

export interface WarmUpSummary {
  saleId: number;
  stock: number;
  pendingReservations: number;
  shoppersHolding: number;
  startsAt: Date;
  endsAt: Date;
  unitLimit: number;
  /** Shoppers whose eligibility differs from a new account's (see server/sale-redis/eligibility.ts). */
  eligibilityOverrides: number;
  /** Units reservable in each stock bucket (one entry for a one-bucket sale). */
  bucketStocks: number[];
  /** Places admitted per second of the sale's waiting room; 0: no room. */
  admissionRate: number;
  /** What the warm-up did to the waiting room (NONE: the sale has none and had none). */
  room?: RoomLoadResult;
}

/**
 * One bucket's Redis stock and its home shoppers' holdings, derived from MySQL truth plus
 * reservations not yet in MySQL. `dbStock` is the bucket's units not in an active order;
 * `pendingNotInDb` the reservations pending in this bucket (their units came from here). A
 * shopper's count lives in their home bucket, so it also counts `heldElsewhere`: their
 * reservations pending in other buckets and their fallover holds here, one per purchase (a hold
 * and the reservation it became share the id's random part). `homedHere` picks this bucket's
 * shoppers; every shopper by default (a one-bucket sale).
 */
export function computeWarmState(input: {
  dbStock: number;
  orderCountsByUser: ReadonlyMap<number, number>;
  pendingNotInDb: readonly string[];
  heldElsewhere?: readonly string[];
  homedHere?: (userId: number) => boolean;
}): { stock: number; holdings: Map<number, number> } {
  const { heldElsewhere = [], homedHere = () => true } = input;
  const holdings = new Map(input.orderCountsByUser);
  const purchases = new Set<string>();
  for (const reservationId of [...input.pendingNotInDb, ...heldElsewhere]) {
    const ref = parseReservationId(reservationId);
    const purchase = reservationInBucket(reservationId, 0);
    if (!ref || !homedHere(ref.userId) || purchases.has(purchase)) continue;
    purchases.add(purchase);
    holdings.set(ref.userId, (holdings.get(ref.userId) ?? 0) + 1);
  }
  return { stock: Math.max(0, input.dbStock - input.pendingNotInDb.length), holdings };
}

const CHUNK = 1000;

/** A large hash written as several HSETs, so no single command carries a million fields. */
function hsetInChunks(tx: ChainableCommander, key: string, values: ReadonlyMap<number | string, number | string>) {
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
  /** How long to wait for a stock change, a reconcile repair or another warm-up of the sale to finish. */
  lockWaitMs?: number;
}

/** A stock change or a repair holds the sale's stock-change lock for milliseconds. */
const WARM_UP_LOCK_WAIT_MS = 5000;

/**
 * Loads a sale into Redis (stock, window, unit limit, who holds what) from MySQL, keeping
 * reservations still on their way to MySQL, and resets every instance's sold-out flag.
 *
 * Safe on a running sale: the write is a MULTI under WATCH of the sale's stock and pending keys,
 * read BEFORE MySQL. A reservation, an order settling or a unit released between the reads and
 * the write changes one of them, the MULTI is dropped and everything is read again; a sale that
 * keeps changing is refused (CONFLICT, nothing written) rather than loaded with a stock that
 * forgets units sold meanwhile. Reading pending first matters: an order committed after that
 * read is in MySQL's stock and in the order lookup alike, or in neither.
 *
 * It holds the sale's stock-change lock (server/stock/change-lock.ts): between a stock change's
 * MySQL and Redis halves MySQL says one thing and Redis another, and a load from MySQL there
 * would count the change's first half and its second half would be applied on top. A sale whose
 * lock stays taken is refused (CONFLICT) rather than loaded.
 */
export async function warmUpSale(services: WarmUpServices, saleId: number, options: WarmUpOptions = {}): Promise<WarmUpSummary> {
  const locked = await withStockChangeLock(services.sql, saleId, options.lockWaitMs ?? WARM_UP_LOCK_WAIT_MS, () =>
    warmUpSaleLocked(services, saleId, options),
  );
  if (!locked.held) {
    throw new AppError(
      "CONFLICT",
      sentence((s) => s.seckill.stockBusy(saleId)),
    );
  }
  return locked.value;
}

/** warmUpSale's work, for a caller already holding the sale's stock-change lock (the reconciler's re-warm). */
export async function warmUpSaleLocked(
  services: WarmUpServices,
  saleId: number,
  options: Omit<WarmUpOptions, "lockWaitMs"> = {},
): Promise<WarmUpSummary> {
  const sale = await services.db.sale.findUnique({
    where: { id: saleId },
    select: {
      stockBuckets: true,
      startsAt: true,
      endsAt: true,
      admissionRate: true,
      arrivalOrder: true,
      purchaseChallenge: true,
      ...ELIGIBILITY_RULE_FIELDS,
    },
  });
  if (!sale) throw new AppError("NOT_FOUND", saleDoesNotExist(saleId));
  const roomSettings = roomSettingsOf(sale);
  // WATCH belongs to a connection: a dedicated one, so other requests' commands cannot clear it.
  const connection = services.redis.duplicate();
  try {
    await clusterReady(connection, services.env.REDIS_COMMAND_TIMEOUT_MS);
    const warmRoom = () =>
      loadRoom(
        connection,
        services.env.REDIS_NAMESPACE,
        saleId,
        roomSettings,
        () => highestUserId(services),
        () => eligibilityOverrides(services, sale),
        services.env.REDIS_COMMAND_TIMEOUT_MS,
      );
    // A room opens before the buckets refuse tokens (admissionRate), so a shopper sent to it can
    // join at once; it closes after they take tokens again. Either way its tickets out stop
    // buying once its meta is gone (purchaseWithTicket: no room, no tickets; a room opened again
    // has a new epoch) and their holders buy as everyone else does, with a purchase token.
    const room = roomSettings ? await warmRoom() : undefined;
    // Bucket by bucket, each under its own WATCH: on Redis Cluster one transaction cannot span
    // two hash tags.
    const loaded: WarmUpSummary[] = [];
    for (let bucket = 0; bucket < sale.stockBuckets; bucket++) {
      loaded.push(await warmUpBucket(services, connection, saleId, bucket, sale.stockBuckets, options));
    }
    const summary: WarmUpSummary = {
      ...loaded[0]!,
      stock: sum(loaded.map((b) => b.stock)),
      pendingReservations: sum(loaded.map((b) => b.pendingReservations)),
      shoppersHolding: sum(loaded.map((b) => b.shoppersHolding)),
      eligibilityOverrides: sum(loaded.map((b) => b.eligibilityOverrides)),
      bucketStocks: loaded.map((b) => b.stock),
      room: room ?? (await warmRoom()),
    };
    await broadcastSoldOut(services.redis, services.env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: summary.stock <= 0 });
    return summary;
  } finally {
    connection.disconnect();
  }
}

/** Every shopper whose code in this sale differs from a new account's: the room's copy, for the join (all buckets' shoppers in one). */
async function eligibilityOverrides(services: WarmUpServices, rules: EligibilityRules): Promise<Map<number, EligibilityCode>> {
  const standings = await services.db.user.findMany({ where: nonDefaultStanding(rules), select: { id: true, ...STANDING_FIELDS } });
  return eligibilityTable(standings, rules).overrides;
}

async function highestUserId(services: WarmUpServices): Promise<number> {
  return (await services.db.user.aggregate({ _max: { id: true } }))._max.id ?? 0;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

async function warmUpBucket(
  services: WarmUpServices,
  connection: RedisConnection,
  saleId: number,
  bucket: number,
  buckets: number,
  options: Omit<WarmUpOptions, "lockWaitMs">,
): Promise<WarmUpSummary> {
  for (let attempt = 1; attempt <= WARM_UP_ATTEMPTS; attempt++) {
    const summary = await tryWarmUp(services, connection, saleId, bucket, buckets, options);
    if (summary) return summary;
  }
  throw new AppError(
    "CONFLICT",
    sentence((s) => s.seckill.warmUpRaced(saleId, WARM_UP_ATTEMPTS, bucket)),
  );
}

/** What one bucket's warm-up reads: Redis under WATCH, then one MySQL snapshot. */
export interface BucketReading {
  saleId: number;
  bucket: number;
  buckets: number;
  /** The bucket's pending reservations and fallover holds. */
  pending: string[];
  holds: string[];
  /** This bucket's home shoppers' reservations pending in the other buckets. */
  elsewhere: string[];
  sale: { startsAt: Date; endsAt: Date; unitLimit: number; stockCount: number; admissionRate: number } & EligibilityRules;
  /** Of the pending reservations read, those MySQL already decided (an order, or a release). */
  decidedInDb: string[];
  /** Orders of this bucket whose units MySQL's stock already counts as given back. */
  releasedOrderIds: number[];
  /** Active orders per shopper and stock bucket, across the sale. */
  activeOrders: { userId: number; stockBucket: number; _count: { _all: number } }[];
  /** Shoppers whose standing differs from a new account's. */
  standings: (Standing & { id: number })[];
}

/** What one bucket's warm-up writes to Redis, in one transaction. */
export interface BucketLoad {
  stock: number;
  /** admissionRate > 0: a room sale, bought with tickets only (issue-token-5.lua refuses tokens). */
  /** persons: 1 in a real-name sale, whose purchases count per person too (includes/count-shopper.lua). */
  meta: {
    startsAt: number;
    endsAt: number;
    limit: number;
    eligibility: EligibilityCode;
    buckets: number;
    admissionRate: number;
    persons: 0 | 1;
  };
  holdings: Map<number, number>;
  /** A real-name sale's persons, written into the users hash beside the holdings: `person-of:<userId>` and `person:<key>` fields. */
  personFields: Map<string, string | number>;
  eligibilityOverrides: Map<number, EligibilityCode>;
  releasedOrderIds: number[];
  /** Pending reservations MySQL already decided: they leave the pending set. */
  orderedHere: string[];
  summary: WarmUpSummary;
}

/**
 * Pure: a bucket's Redis state from what was read. Pending reservations that are already orders,
 * or already released by check-back, are decided in MySQL: they leave the pending set and count
 * only through MySQL's numbers.
 */
export function planBucketLoad(reading: BucketReading): BucketLoad {
  const { saleId, bucket, buckets, pending, holds, elsewhere, sale } = reading;
  const homedHere = (userId: number) => homeBucket(userId, buckets) === bucket;
  const decidedIds = new Set(reading.decidedInDb);
  const orderedHere = pending.filter((id) => decidedIds.has(id));
  const undecidedHere = (ids: readonly string[]) => ids.filter((id) => !decidedIds.has(id));

  const orderCountsByUser = new Map<number, number>();
  for (const g of reading.activeOrders) {
    if (homedHere(g.userId)) orderCountsByUser.set(g.userId, (orderCountsByUser.get(g.userId) ?? 0) + g._count._all);
  }
  const { stock, holdings } = computeWarmState({
    dbStock: bucketStockInDb(sale.stockCount, activeByBucket(reading.activeOrders, buckets), bucket),
    orderCountsByUser,
    pendingNotInDb: undecidedHere(pending),
    heldElsewhere: [...undecidedHere(elsewhere), ...holds],
    homedHere,
  });
  const eligibility = eligibilityTable(
    reading.standings.filter((s) => homedHere(s.id)),
    sale,
  );
  const personFields = new Map<string, string | number>();
  for (const [userId, person] of eligibility.persons) {
    personFields.set(personOfField(userId), person);
    const held = holdings.get(userId) ?? 0;
    if (held > 0) personFields.set(personField(person), Number(personFields.get(personField(person)) ?? 0) + held);
  }
  return {
    stock,
    meta: {
      startsAt: sale.startsAt.getTime(),
      endsAt: sale.endsAt.getTime(),
      limit: sale.unitLimit,
      eligibility: eligibility.defaultCode,
      buckets,
      admissionRate: Math.max(0, sale.admissionRate),
      persons: sale.requireRealName ? 1 : 0,
    },
    holdings,
    personFields,
    eligibilityOverrides: eligibility.overrides,
    releasedOrderIds: reading.releasedOrderIds,
    orderedHere,
    summary: {
      saleId,
      stock,
      pendingReservations: undecidedHere(pending).length,
      shoppersHolding: holdings.size,
      startsAt: sale.startsAt,
      endsAt: sale.endsAt,
      unitLimit: sale.unitLimit,
      eligibilityOverrides: eligibility.overrides.size,
      bucketStocks: [stock],
      admissionRate: Math.max(0, sale.admissionRate),
    },
  };
}

/** One read-then-write round for one bucket; null when a watched key changed and nothing was written. */
async function tryWarmUp(
  services: WarmUpServices,
  connection: RedisConnection,
  saleId: number,
  bucket: number,
  buckets: number,
  options: Omit<WarmUpOptions, "lockWaitMs">,
): Promise<WarmUpSummary | null> {
  const load = planBucketLoad(await readBucket(services, connection, saleId, bucket, buckets));
  await options.beforeWrite?.();
  const written = await writeBucketLoad(connection, bucketKeys(services.env.REDIS_NAMESPACE, saleId, bucket), load);
  return written ? load.summary : null;
}

/** The reads of tryWarmUp; the connection stays WATCHing the bucket's keys for the write. */
async function readBucket(
  services: WarmUpServices,
  connection: RedisConnection,
  saleId: number,
  bucket: number,
  buckets: number,
): Promise<BucketReading> {
  const { db, env } = services;
  const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, bucket);
  const homedHere = (userId: number) => homeBucket(userId, buckets) === bucket;
  // The home shoppers' counts change with stock, pending or holds, except when a unit taken in
  // another bucket comes back (adjust-home-count-2.lua "returned"): hence users too. And the fence: a stock
  // change that lost its lock may still write, fenced (adjust-stock-2.lua).
  await connection.watch(keys.stock, keys.pending, keys.holds, keys.users, keys.fence);
  const [pending, holds] = await Promise.all([connection.zrange(keys.pending, 0, -1), connection.zrange(keys.holds, 0, -1)]);
  // This bucket's shoppers' reservations in the other buckets, read after the WATCH: one that
  // appears later was held here first (holds is watched). Other tags: not on the watching
  // connection, which must stay within this bucket's slot on Redis Cluster.
  const elsewhere = (
    await Promise.all(
      Array.from({ length: buckets }, (_, b) => b)
        .filter((b) => b !== bucket)
        .map((b) => services.redis.zrange(bucketKeys(env.REDIS_NAMESPACE, saleId, b).pending, 0, -1)),
    )
  )
    .flat()
    .filter((id) => {
      const ref = parseReservationId(id);
      return ref !== null && homedHere(ref.userId);
    });
  const undecided = [...pending, ...elsewhere];

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
          unitLimit: true,
          ...ELIGIBILITY_RULE_FIELDS,
          admissionRate: true,
          stock: { select: { count: true } },
        },
      });
      const inUndecided = { reservationId: { in: undecided } };
      return {
        sale,
        alreadyOrdered: undecided.length ? await tx.order.findMany({ where: inUndecided, select: { reservationId: true } }) : [],
        alreadyReleased: undecided.length
          ? await tx.releasedReservation.findMany({ where: inUndecided, select: { reservationId: true } })
          : [],
        // MySQL's stock already counts these orders' units as given back: a late release-order-3.lua run
        // (a timer retried after this warm-up) must find them released, or it would add them again.
        released: await tx.order.findMany({
          where: { saleId, stockBucket: bucket, status: { in: [...RELEASED_ORDER_STATUSES] } },
          select: { id: true },
        }),
        grouped: await tx.order.groupBy({
          by: ["userId", "stockBucket"],
          where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } },
          _count: { _all: true },
        }),
      };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 30_000 },
  );
  if (!sale || !sale.stock) {
    await connection.unwatch();
    if (!sale) throw new AppError("NOT_FOUND", saleDoesNotExist(saleId));
    throw new AppError(
      "PRECONDITION_FAILED",
      sentence((s) => s.seckill.noStockRow(saleId)),
    );
  }
  const standings = await db.user.findMany({ where: nonDefaultStanding(sale), select: { id: true, ...STANDING_FIELDS } });
  return {
    saleId,
    bucket,
    buckets,
    pending,
    holds,
    elsewhere,
    sale: {
      startsAt: sale.startsAt,
      endsAt: sale.endsAt,
      unitLimit: sale.unitLimit,
      requireRealName: sale.requireRealName,
      minMemberLevel: sale.minMemberLevel,
      requireVerifiedContact: sale.requireVerifiedContact,
      accountsCreatedBefore: sale.accountsCreatedBefore,
      stockCount: sale.stock.count,
      admissionRate: sale.admissionRate,
    },
    decidedInDb: [...alreadyOrdered, ...alreadyReleased].map((o) => o.reservationId),
    releasedOrderIds: released.map((o) => o.id),
    activeOrders: grouped,
    standings,
  };
}

/** The write of tryWarmUp, in one MULTI on the WATCHing connection; false when Redis dropped it. */
async function writeBucketLoad(connection: RedisConnection, keys: ReturnType<typeof bucketKeys>, load: BucketLoad): Promise<boolean> {
  const tx = connection.multi();
  tx.set(keys.stock, load.stock);
  // A stock change that read the fence before this load cannot apply its delta on top of it.
  tx.incr(keys.fence);
  tx.del(keys.meta);
  tx.hset(keys.meta, load.meta);
  tx.del(keys.users);
  hsetInChunks(tx, keys.users, load.holdings);
  hsetInChunks(tx, keys.users, load.personFields);
  tx.del(keys.eligibility);
  hsetInChunks(tx, keys.eligibility, load.eligibilityOverrides);
  tx.del(keys.released);
  saddInChunks(tx, keys.released, load.releasedOrderIds);
  if (load.orderedHere.length) tx.zrem(keys.pending, ...load.orderedHere);
  // null: a watched key changed since the reads, and Redis dropped the whole transaction.
  return (await tx.exec()) !== null;
}
