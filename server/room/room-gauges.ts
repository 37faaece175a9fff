import type { RedisConnection } from "../clients/redis";
import { roomKeys } from "../sale-redis/keys";
import { admittedBy, type Frontier } from "./frontier";
import { parseRoomMeta, ROOM_META_FIELDS, type RoomReading } from "./room-reading";

/** The waiting room's numbers the admin dashboard shows: the reading room.onStatus serves, and what follows from it at one moment. */
export interface RoomGauges extends RoomReading {
  rate: number;
  joined: number;
  /** places admitted by now, capped at the joined (the line may run one place ahead of them) */
  admitted: number;
  /** joined and not admitted yet; before a RANDOM draw, every one who joined */
  waiting: number;
  /** how long the longest-waiting shopper still in line has waited, whole seconds; 0 when nobody waits */
  oldestWaitSeconds: number;
}

/** What one read of the room brings back: its meta hash, and the arrival second of `oldestSeat`. */
export interface RawRoom {
  meta: Readonly<Record<string, string>>;
  /** epoch second the seat `oldestWaitingSeat(...)` arrived in; null when the arrivals say nothing */
  oldestArrivalSecond: number | null;
}

function readingOf(meta: Readonly<Record<string, string>>, now: number): RoomReading | null {
  return parseRoomMeta(
    ROOM_META_FIELDS.map((field) => meta[field] ?? null),
    now,
  );
}

/** Whole places admitted by `now`, never more than joined. */
function admittedAt(line: Frontier, now: number): number {
  return Math.max(0, Math.min(line.joined, Math.floor(admittedBy(line, now))));
}

/**
 * The seat whose arrival marks the oldest wait: the first place not yet admitted, which is its
 * seat in arrival order; while a random draw is still being admitted its waiting places are
 * spread over seats 1..drawn, so the earliest arrival (seat 1) bounds their wait. null when nobody waits.
 */
export function oldestWaitingSeat(meta: Readonly<Record<string, string>>, now: number): number | null {
  const reading = readingOf(meta, now);
  if (!reading) return null;
  const admitted = admittedOf(reading);
  if (admitted >= reading.line.joined) return null;
  const undrawnRandom = reading.order === "RANDOM" && reading.drawn === null;
  if (undrawnRandom || (reading.drawn !== null && admitted < reading.drawn)) return 1;
  return admitted + 1;
}

/** Before a RANDOM room draws, nobody has a place: nobody is admitted, whatever the clock says. */
function admittedOf(reading: RoomReading): number {
  return reading.order === "RANDOM" && reading.drawn === null ? 0 : admittedAt(reading.line, reading.now);
}

/** Pure: the dashboard's numbers of a room's raw Redis state at `now`; null when the sale has no room. */
export function roomGauges(raw: RawRoom, now: number): RoomGauges | null {
  const reading = readingOf(raw.meta, now);
  if (!reading) return null;
  const admitted = admittedOf(reading);
  const waiting = reading.line.joined - admitted;
  const oldestWaitSeconds =
    waiting > 0 && raw.oldestArrivalSecond !== null ? Math.max(0, Math.floor(now / 1000) - raw.oldestArrivalSecond) : 0;
  return { ...reading, rate: reading.line.rate, joined: reading.line.joined, admitted, waiting, oldestWaitSeconds };
}

/**
 * One read of a room: TIME and the meta in one MULTI (the room's slot), then, if someone waits,
 * the arrival second of the oldest waiting seat (arrivals: member = epoch second, score = the first
 * seat that joined in it). null when the sale has no room loaded.
 */
export async function readRoomGauges(redis: RedisConnection, namespace: string, saleId: number): Promise<RoomGauges | null> {
  const keys = roomKeys(namespace, saleId);
  const replies = await redis.multi().time().hgetall(keys.meta).exec();
  if (!replies) return null;
  const [[timeError, time], [metaError, meta]] = replies as [[Error | null, [string, string]], [Error | null, Record<string, string>]];
  if (timeError) throw timeError;
  if (metaError) throw metaError;
  const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  const seat = oldestWaitingSeat(meta, now);
  let oldestArrivalSecond: number | null = null;
  if (seat !== null) {
    const [second] = await redis.zrevrangebyscore(keys.arrivals, seat, "-inf", "LIMIT", 0, 1);
    if (second !== undefined) oldestArrivalSecond = Number(second);
  }
  return roomGauges({ meta, oldestArrivalSecond }, now);
}
