import { clusterReady, type RedisConnection } from "../clients/redis";
import { roomKeys, SEATS_PER_HASH } from "../sale-redis/keys";
import { AppError } from "../platform/errors";
import { rebaseFrontier, type Frontier } from "./frontier";
import { eligibilityOf, NEW_ACCOUNT, type EligibilityCode, type EligibilityRules } from "../sale-redis/eligibility";
import { sentence } from "../platform/sentences/sentence";

/**
 * A waiting room's meta hash as warm-up writes it (join-room-4.lua reads it and moves `frontier`,
 * `frontierAt`, `joined` and `drawn`). Read → decide (pure, planRoomLoad) → write, like the
 * buckets' warm-up, but in its own transaction: the room's keys have their own hash tag
 * (`{room:<id>}`), so on Redis Cluster they cannot join a bucket's MULTI.
 */
export type ArrivalOrder = "RANDOM" | "ARRIVAL";

/** What a sale's settings say its room is; null when it has none (admission rate 0). */
export interface RoomSettings {
  /** epoch ms: the sale's start */
  opensAt: number;
  endsAt: number;
  /** places admitted per second, > 0 */
  rate: number;
  order: ArrivalOrder;
  challenge: boolean;
  /** the eligibility code of a shopper not listed in the room's eligibility hash (a new account's) */
  eligibility: EligibilityCode;
}

export function roomSettingsOf(
  sale: { startsAt: Date; endsAt: Date; admissionRate: number; arrivalOrder: ArrivalOrder; purchaseChallenge: boolean } & EligibilityRules,
): RoomSettings | null {
  if (sale.admissionRate <= 0) return null;
  return {
    opensAt: sale.startsAt.getTime(),
    endsAt: sale.endsAt.getTime(),
    rate: sale.admissionRate,
    order: sale.arrivalOrder,
    challenge: sale.purchaseChallenge,
    eligibility: eligibilityOf(NEW_ACCOUNT, sale),
  };
}

/** The meta fields, as strings (Redis's). `drawn` is absent until join-room-4.lua draws. */
export interface RoomMetaHash {
  /**
   * This opening of the room: Redis's clock (epoch ms) when warm-up opened it. Seats restart from
   * 1 at each opening, so tickets name it (server/room/ticket.ts) and a closed room's tickets and
   * spent-ticket keys mean nothing in the next one. Absent in a room opened before rooms had one: 0.
   */
  epoch: string;
  opensAt: string;
  endsAt: string;
  rate: string;
  order: ArrivalOrder;
  frontier: string;
  frontierAt: string;
  joined: string;
  challenge: "0" | "1";
  /** RoomSettings.eligibility; the shoppers who differ are in RoomKeys.eligibility */
  eligibility: string;
  drawn?: string;
}

/** A new room opened at `epoch` (Redis's clock): nobody joined, nobody admitted, the line anchored at the opening. */
export function freshRoomMeta(settings: RoomSettings, epoch: number): RoomMetaHash {
  return {
    epoch: String(epoch),
    opensAt: String(settings.opensAt),
    endsAt: String(settings.endsAt),
    rate: String(settings.rate),
    order: settings.order,
    frontier: "0",
    frontierAt: String(settings.opensAt),
    joined: "0",
    challenge: settings.challenge ? "1" : "0",
    eligibility: String(settings.eligibility),
  };
}

/** The admission line stored in a meta hash. */
export function storedLine(stored: Readonly<Record<string, string>>): Frontier {
  return {
    frontier: Number(stored.frontier ?? 0),
    frontierAt: Number(stored.frontierAt ?? 0),
    rate: Number(stored.rate ?? 0),
    joined: Number(stored.joined ?? 0),
  };
}

export type RoomPlan =
  /** no room before, none now */
  | { action: "NONE" }
  /** a new room (or one whose meta was lost), a new epoch: seats and arrivals of any earlier room are cleared */
  | { action: "OPEN"; meta: RoomMetaHash }
  /** a warm room: its epoch, seats, `joined` and `drawn` stay; these fields are set */
  | { action: "UPDATE"; fields: Partial<RoomMetaHash>; rebased: boolean }
  /** the rate became 0: the room closes (meta, seats and arrivals go) */
  | { action: "CLOSE" };

/**
 * Pure: what a warm-up does to a sale's room, from its settings, the stored meta (null when none)
 * and Redis's clock. A rate change re-times everyone waiting from `now` at the new rate
 * (rebaseFrontier); a moved opening re-anchors a line that has not started at the new opening, and
 * holds a started one until the new opening if that is later.
 */
export function planRoomLoad(settings: RoomSettings | null, stored: Readonly<Record<string, string>> | null, now: number): RoomPlan {
  if (!settings) return stored ? { action: "CLOSE" } : { action: "NONE" };
  if (!stored) return { action: "OPEN", meta: freshRoomMeta(settings, now) };
  const fresh = freshRoomMeta(settings, now);
  const fields: Partial<RoomMetaHash> = {
    opensAt: fresh.opensAt,
    endsAt: fresh.endsAt,
    rate: fresh.rate,
    order: fresh.order,
    challenge: fresh.challenge,
    eligibility: fresh.eligibility,
  };
  const line = storedLine(stored);
  const started = line.frontier > 0 || now >= line.frontierAt;
  const rateChanged = line.rate !== settings.rate;
  const opensAtChanged = Number(stored.opensAt) !== settings.opensAt;
  if (!started) {
    if (opensAtChanged) Object.assign(fields, { frontier: "0", frontierAt: fresh.opensAt });
    return { action: "UPDATE", fields, rebased: false };
  }
  if (!rateChanged && !opensAtChanged) return { action: "UPDATE", fields, rebased: false };
  const rebased = rebaseFrontier(line, settings.rate, now);
  Object.assign(fields, { frontier: String(rebased.frontier), frontierAt: String(Math.max(rebased.frontierAt, settings.opensAt)) });
  return { action: "UPDATE", fields, rebased: true };
}

/** Redis's clock in epoch ms: the room's moments are the shop's, not this process's. */
export async function redisNowMs(redis: Pick<RedisConnection, "time">): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * Every seats hash a room of shoppers with ids up to `maxUserId` can have: seats(userId) buckets
 * ids by SEATS_PER_HASH, so the keys are known without a SCAN (which Redis Cluster would need per node).
 */
export function seatHashKeys(namespace: string, saleId: number, maxUserId: number): string[] {
  const keys = roomKeys(namespace, saleId);
  return Array.from({ length: Math.floor(maxUserId / SEATS_PER_HASH) + 1 }, (_, i) => keys.seats(i * SEATS_PER_HASH));
}

const ROOM_ATTEMPTS = 5;
const DEL_CHUNK = 500;

export interface RoomLoadResult {
  action: RoomPlan["action"];
  /** the line was re-timed at a new rate (or a moved opening) */
  rebased: boolean;
}

/** A large hash written as several HSETs, so no single command carries a million fields. */
const HSET_CHUNK = 1000;

/**
 * Reads the room's meta under WATCH, decides, writes in one MULTI; a join meanwhile (it changes
 * the meta) drops the MULTI and the round runs again. `maxUserId`: the highest shopper id, for
 * clearing the seats of a room that closes or starts afresh. `eligibilityOverrides`: the sale's
 * shoppers whose code differs from `settings.eligibility`, copied into the room's slot with it
 * so the join script can refuse them (it cannot read the sale's keys on Redis Cluster).
 */
export async function loadRoom(
  connection: RedisConnection,
  namespace: string,
  saleId: number,
  settings: RoomSettings | null,
  maxUserId: () => Promise<number>,
  eligibilityOverrides: () => Promise<ReadonlyMap<number, EligibilityCode>>,
  timeoutMs: number,
): Promise<RoomLoadResult> {
  await clusterReady(connection, timeoutMs);
  const keys = roomKeys(namespace, saleId);
  for (let attempt = 1; attempt <= ROOM_ATTEMPTS; attempt++) {
    await connection.watch(keys.meta);
    const stored = await connection.hgetall(keys.meta);
    const now = await redisNowMs(connection);
    const plan = planRoomLoad(settings, Object.keys(stored).length ? stored : null, now);
    if (plan.action === "NONE") {
      await connection.unwatch();
      return { action: "NONE", rebased: false };
    }
    const overrides = plan.action === "CLOSE" ? new Map<number, EligibilityCode>() : await eligibilityOverrides();
    const tx = connection.multi();
    if (plan.action === "UPDATE") {
      tx.hset(keys.meta, plan.fields);
    } else {
      // No meta means no join could run (it answers NOT_WARMED): seats and arrivals here are an
      // earlier room's, and a fresh `joined` of 0 must not hand their seat numbers out again.
      const stale = [keys.arrivals, ...seatHashKeys(namespace, saleId, await maxUserId())];
      tx.del(keys.meta);
      for (let i = 0; i < stale.length; i += DEL_CHUNK) tx.del(...stale.slice(i, i + DEL_CHUNK));
      if (plan.action === "OPEN") tx.hset(keys.meta, plan.meta);
    }
    // The room's copy of who differs, replaced whole like the buckets' (server/warmup/warmup.ts).
    tx.del(keys.eligibility);
    const entries = [...overrides.entries()];
    for (let i = 0; i < entries.length; i += HSET_CHUNK) tx.hset(keys.eligibility, Object.fromEntries(entries.slice(i, i + HSET_CHUNK)));
    if ((await tx.exec()) !== null) return { action: plan.action, rebased: plan.action === "UPDATE" && plan.rebased };
  }
  throw new AppError(
    "CONFLICT",
    sentence((s) => s.seckill.roomRaced(saleId, ROOM_ATTEMPTS)),
  );
}
