import { groupBy } from "../lib/group-by";
import { randomString } from "../lib/random-pool";

/**
 * A reservation id names its sale and its shopper, so a result query can be answered (and
 * checked for ownership) from the id alone, and the stock bucket its unit came from (a suffix
 * `-<bucket>`, absent for bucket 0, so a one-bucket sale's ids are as before buckets existed).
 * No `:` so it can be part of a BullMQ job id.
 */
export interface ReservationRef {
  saleId: number;
  userId: number;
}

const RESERVATION_ID = /^(\d{1,10})-(\d{1,10})-([0-9a-f]{16})(?:-([1-9]\d?))?$/;

export function newReservationId(saleId: number, userId: number): string {
  return `${saleId}-${userId}-${randomString(8, "hex")}`;
}

export function parseReservationId(id: string): ReservationRef | null {
  const match = RESERVATION_ID.exec(id);
  if (!match) return null;
  return { saleId: Number(match[1]), userId: Number(match[2]) };
}

/** The stock bucket a (well-formed) reservation id's unit is taken from. */
export function stockBucketOf(id: string): number {
  return Number(RESERVATION_ID.exec(id)?.[4] ?? 0);
}

/**
 * The same reservation, taking its unit from another bucket (a fallover): same sale, shopper and
 * random part, so the hold at home and the reservation elsewhere are recognisably one purchase.
 */
export function reservationInBucket(id: string, bucket: number): string {
  const base = id.replace(/-\d{1,2}$/, "");
  return bucket === 0 ? base : `${base}-${bucket}`;
}

export const RESERVATION_ID_PATTERN = RESERVATION_ID;

/**
 * The id of a create-order job: `order-<first reservation it carries>`, and for check-back's
 * n-th re-enqueue of a reservation on its own, `order-<reservationId>-r<n>` (a fresh id, so a
 * batch led by this reservation and its re-enqueues never share one).
 */
export function createOrderJobId(reservationId: string, requeue = 0): string {
  return requeue === 0 ? `order-${reservationId}` : `order-${reservationId}-r${requeue}`;
}

/** Pure: reservations grouped by the sale and stock bucket whose Redis keys hold them. */
export function groupByBucket<R extends ReservationRef & { reservationId: string }>(
  reservations: readonly R[],
): { saleId: number; bucket: number; reservations: R[] }[] {
  const groups = groupBy(reservations, (r) => `${r.saleId}/${stockBucketOf(r.reservationId)}`);
  return [...groups.values()].map((group) => ({
    saleId: group[0]!.saleId,
    bucket: stockBucketOf(group[0]!.reservationId),
    reservations: group,
  }));
}
