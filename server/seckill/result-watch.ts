import type { Services } from "../platform/services";
import { bucketKeys } from "../sale-redis/keys";
import { parseReservationId, stockBucketOf } from "./reservation";

/** Where a QUEUED purchase stands (seckill.result, seckill.onResult). */
export type PurchaseResult = { status: "QUEUED" } | { status: "ORDER_CREATED"; orderId: number } | { status: "FAILED" };

/**
 * How often the process looks at the reservations its result streams wait for, all of them at
 * once: an order shows within this of its commit.
 */
const LOOK_EVERY_MS = 500;

/**
 * What one look found of a bucket's waited-for reservations (pure): each id's order id from the
 * bucket's orders hash, its pending entry's score, in the order of `ids`. An order id means
 * ORDER_CREATED; a pending entry, still QUEUED (left out); neither, MySQL must say (`unknown`).
 */
export function readResults(
  ids: readonly string[],
  orderIds: readonly (string | null)[],
  pending: readonly (string | null)[],
): { settled: Map<string, PurchaseResult>; unknown: string[] } {
  const settled = new Map<string, PurchaseResult>();
  const unknown: string[] = [];
  ids.forEach((id, i) => {
    const orderId = orderIds[i];
    if (orderId) settled.set(id, { status: "ORDER_CREATED", orderId: Number(orderId) });
    else if (pending[i] == null) unknown.push(id);
  });
  return { settled, unknown };
}

type Waiter = (result: PurchaseResult) => void;

/**
 * One watch per process over every QUEUED reservation a result stream follows: a look every
 * LOOK_EVERY_MS while anyone waits asks Redis two commands per stock bucket (HMGET of the order
 * ids, ZMSCORE of the pending entries) for all of a bucket's waited-for ids together, and MySQL
 * once for those neither knows (settled between the two reads, or released). A waiting stream costs
 * an entry in a map, nothing per second of its own.
 */
class ResultWatch {
  /** reservation id -> the streams waiting for it */
  private readonly waiting = new Map<string, Set<Waiter>>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(private readonly services: Pick<Services, "db" | "env" | "redis">) {}

  /** Resolves with the reservation's final result once a look finds it, or with null on abort. */
  settled(reservationId: string, signal?: AbortSignal): Promise<PurchaseResult | null> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(null);
      let waiters = this.waiting.get(reservationId);
      if (!waiters) this.waiting.set(reservationId, (waiters = new Set()));
      const leave = () => {
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiting.get(reservationId) === waiters) this.waiting.delete(reservationId);
        signal?.removeEventListener("abort", onAbort);
        if (this.waiting.size === 0) this.stop();
      };
      const waiter: Waiter = (result) => {
        leave();
        resolve(result);
      };
      const onAbort = () => {
        leave();
        resolve(null);
      };
      waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timer ??= setInterval(() => void this.look(), LOOK_EVERY_MS);
    });
  }

  private async look() {
    if (this.looking) return;
    this.looking = true;
    try {
      const settled = await this.readAll([...this.waiting.keys()]);
      for (const [id, result] of settled) for (const waiter of [...(this.waiting.get(id) ?? [])]) waiter(result);
    } catch {
      // Redis or MySQL not answering: the streams wait for the next look.
    } finally {
      this.looking = false;
    }
  }

  private async readAll(ids: string[]): Promise<Map<string, PurchaseResult>> {
    const byBucket = new Map<string, { saleId: number; bucket: number; ids: string[] }>();
    for (const id of ids) {
      const saleId = parseReservationId(id)!.saleId;
      const bucket = stockBucketOf(id);
      const key = `${saleId}:${bucket}`;
      let group = byBucket.get(key);
      if (!group) byBucket.set(key, (group = { saleId, bucket, ids: [] }));
      group.ids.push(id);
    }
    const { redis, env, db } = this.services;
    const reads = await Promise.all(
      [...byBucket.values()].map(async ({ saleId, bucket, ids: bucketIds }) => {
        const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, bucket);
        const [orderIds, pending] = await Promise.all([redis.hmget(keys.orders, ...bucketIds), redis.zmscore(keys.pending, ...bucketIds)]);
        return readResults(bucketIds, orderIds, pending);
      }),
    );
    const settled = new Map(reads.flatMap((read) => [...read.settled]));
    const unknown = reads.flatMap((read) => read.unknown);
    if (unknown.length > 0) {
      const orders = await db.order.findMany({ where: { reservationId: { in: unknown } }, select: { id: true, reservationId: true } });
      const ordered = new Map(orders.map((order) => [order.reservationId, order.id]));
      for (const id of unknown) {
        const orderId = ordered.get(id);
        settled.set(id, orderId !== undefined ? { status: "ORDER_CREATED", orderId } : { status: "FAILED" });
      }
    }
    return settled;
  }

  private stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const watches = new WeakMap<object, ResultWatch>();

/** The process's result watch over this Redis connection (tests build services of their own). */
export function resultWatchOf(services: Pick<Services, "db" | "env" | "redis">): ResultWatch {
  let watch = watches.get(services.redis);
  if (!watch) watches.set(services.redis, (watch = new ResultWatch(services)));
  return watch;
}
