import { TwoGenerationMap } from "../lib/generations";
/**
 * Redis key builders. Every key of one sale carries the hash tag `{sale:<id>}` so that all keys a
 * Lua script touches live in one Redis Cluster slot. A sale whose stock is split into buckets
 * (server/sale-redis/buckets.ts) has one such set of keys per bucket: bucket 0 under `{sale:<id>}`,
 * bucket b under `{sale:<id>:b<b>}`, so each bucket's scripts stay within one slot.
 */
export interface SaleKeys {
  /** units left to reserve */
  stock: string;
  /** sale window and unit limit (field `limit`) */
  meta: string;
  /** userId -> units held */
  users: string;
  /** reservations not yet in MySQL, scored by reserved-at */
  pending: string;
  /**
   * reservationId -> held-at: shoppers of this (home) bucket counted against their limit while
   * they look for stock in the other buckets (the fallover saga, see purchase.ts)
   */
  holds: string;
  /** reservationId -> orderId, for the buyer's result query */
  orders: string;
  /** ids of cancelled orders whose unit is back in `stock` (so a re-run never gives it back twice) */
  released: string;
  /** reservationId -> times check-back re-enqueued its create-order job */
  requeues: string;
  /** reservationId -> id of the create-order job carrying it, so check-back can ask the queue */
  jobs: string;
  /** userId -> eligibility code, for shoppers whose code differs from meta.eligibility */
  eligibility: string;
  /**
   * count of writes to `stock` other than one unit's (warm-up, the reconciler's repair, an admin
   * change), each a compare-and-set on it: see server/stock/change-lock.ts
   */
  fence: string;
  /** one shopper's single-use purchase token */
  token(userId: number): string;
  /**
   * set once a waiting-room ticket (server/room/ticket.ts) has bought, for its pass window: named
   * by the room's opening too, since seats restart from 1 when a room opens again
   */
  spentTicket(userId: number, ticket: { epoch: number; seq: number }): string;
  /** outcome -> count for one epoch second (purchase answers, orders settled), for the dashboard */
  stats(epochSecond: number): string;
}

/**
 * The fields of a bucket's users hash that name a real-name sale's person (includes/count-shopper.lua):
 * `person-of:<userId>` -> the person's key, and `person:<key>` -> the units that person holds.
 */
export function personOfField(userId: number): string {
  return `person-of:${userId}`;
}
export function personField(person: string): string {
  return `person:${person}`;
}

/** The keys of a sale's bucket 0: all of a one-bucket sale's keys. */
export function saleKeys(namespace: string, saleId: number): SaleKeys {
  return bucketKeys(namespace, saleId, 0);
}

// Every purchase names its bucket's keys: built once per bucket (12 strings and 3 functions), not per call.
const builtKeys = new TwoGenerationMap<string, SaleKeys>(10_000);

export function bucketKeys(namespace: string, saleId: number, bucket: number): SaleKeys {
  const id = `${namespace}:${saleId}:${bucket}`;
  let keys = builtKeys.get(id);
  if (!keys) builtKeys.set(id, (keys = buildBucketKeys(namespace, saleId, bucket)));
  return keys;
}

function buildBucketKeys(namespace: string, saleId: number, bucket: number): SaleKeys {
  const base = `${namespace}:seckill:{sale:${saleId}${bucket === 0 ? "" : `:b${bucket}`}}`;
  return {
    stock: `${base}:stock`,
    meta: `${base}:meta`,
    users: `${base}:users`,
    pending: `${base}:pending`,
    holds: `${base}:holds`,
    orders: `${base}:orders`,
    released: `${base}:released`,
    requeues: `${base}:requeues`,
    jobs: `${base}:jobs`,
    eligibility: `${base}:eligibility`,
    fence: `${base}:fence`,
    token: (userId) => `${base}:token:${userId}`,
    spentTicket: (userId, ticket) => `${base}:ticket:${ticket.epoch}:${userId}:${ticket.seq}`,
    stats: (epochSecond) => `${base}:stats:${epochSecond}`,
  };
}

/**
 * saleId -> reservations the worker's group commit released because MySQL's stock could not
 * cover them (server/orders/create-orders.ts): served with the reconciler's reports, same slot.
 */
export function shortageReleasesKey(namespace: string): string {
  return `${namespace}:{reconcile}:shortage-releases`;
}

/**
 * A sale's waiting room (server/room/), under its own hash tag `{room:<id>}`: the room's counters
 * are one slot, apart from the stock buckets'.
 */
export interface RoomKeys {
  /** hash: opensAt, endsAt (epoch ms), rate (places per second; absent or 0 = no room), order
   * (RANDOM | ARRIVAL), frontier, frontierAt (the admission line, server/room/frontier.ts),
   * joined (seats given), drawn (seats in the opening's random draw, once drawn), epoch (this
   * opening), eligibility (the default code, as the sale meta's) */
  meta: string;
  /** hash of up to 128 seats: userId -> seat (order of arrival); small hashes stay compact */
  seats(userId: number): string;
  /** zset: epoch second -> the first seat given in it, for the oldest wait */
  arrivals: string;
  /**
   * hash: userId -> eligibility code for shoppers whose code differs from meta.eligibility: the
   * sale's (SaleKeys.eligibility) copied into the room's slot, for the join script
   */
  eligibility: string;
}

export const SEATS_PER_HASH = 128;

export function roomKeys(namespace: string, saleId: number): RoomKeys {
  const base = `${namespace}:seckill:{room:${saleId}}`;
  return {
    meta: `${base}:meta`,
    seats: (userId) => `${base}:seats:${Math.floor(userId / SEATS_PER_HASH)}`,
    arrivals: `${base}:arrivals`,
    eligibility: `${base}:eligibility`,
  };
}

export function soldOutChannel(namespace: string): string {
  return `${namespace}:seckill:sold-out`;
}

/**
 * Held by the one start-up preparation warming a cold sale (server/cli/demo.ts), so that processes
 * starting at once wait for its warm-up instead of each running their own.
 */
export function warmClaimKey(namespace: string, saleId: number): string {
  return `${saleKeys(namespace, saleId).meta}:warm-claim`;
}
