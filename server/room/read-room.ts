import type { RedisConnection } from "../clients/redis";
import { roomKeys } from "../seckill/keys";
import { admittedBy, type Frontier } from "./frontier";
import { storedLine, type ArrivalOrder } from "./room-meta";

/** A room as the dashboard and room.onStatus see it at one moment (Redis's clock). */
export interface RoomReading {
  rate: number;
  order: ArrivalOrder;
  challenge: boolean;
  opensAt: number;
  endsAt: number;
  joined: number;
  /** shoppers drawn at the opening (RANDOM), null before the draw or in ARRIVAL order */
  drawn: number | null;
  line: Frontier;
  /** places admitted by now, capped at the joined (the line may run one place ahead of them) */
  admitted: number;
  /** joined and not admitted yet; before a RANDOM draw, every one who joined */
  waiting: number;
  /** how long the longest-waiting shopper still in line has waited, whole seconds; 0 when nobody waits */
  oldestWaitSeconds: number;
  /** epoch ms of the reading */
  readAt: number;
}

/** What one read of the room brings back: its meta hash, and the arrival second of `oldestSeat`. */
export interface RawRoom {
  meta: Readonly<Record<string, string>>;
  /** epoch second the seat `oldestWaitingSeat(...)` arrived in; null when the arrivals say nothing */
  oldestArrivalSecond: number | null;
}

function isRoomMeta(meta: Readonly<Record<string, string>>): boolean {
  return meta.rate !== undefined && meta.frontierAt !== undefined;
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
  if (!isRoomMeta(meta)) return null;
  const line = storedLine(meta);
  const admitted = admittedAt(line, now);
  if (admitted >= line.joined) return null;
  const drawn = meta.drawn === undefined ? null : Number(meta.drawn);
  const undrawnRandom = meta.order === "RANDOM" && drawn === null;
  if (undrawnRandom || (drawn !== null && admitted < drawn)) return 1;
  return admitted + 1;
}

/** Pure: the reading of a room's raw Redis state at `now`; null when the room is not loaded. */
export function roomReading(raw: RawRoom, now: number): RoomReading | null {
  const { meta } = raw;
  if (!isRoomMeta(meta)) return null;
  const line = storedLine(meta);
  const drawn = meta.drawn === undefined ? null : Number(meta.drawn);
  // Before a RANDOM room draws, nobody has a place: nobody is admitted, whatever the clock says.
  const undrawnRandom = meta.order === "RANDOM" && drawn === null;
  const admitted = undrawnRandom ? 0 : admittedAt(line, now);
  const waiting = line.joined - admitted;
  const oldestWaitSeconds = waiting > 0 && raw.oldestArrivalSecond !== null ? Math.max(0, Math.floor(now / 1000) - raw.oldestArrivalSecond) : 0;
  return {
    rate: line.rate,
    order: meta.order === "ARRIVAL" ? "ARRIVAL" : "RANDOM",
    challenge: meta.challenge === "1",
    opensAt: Number(meta.opensAt),
    endsAt: Number(meta.endsAt),
    joined: line.joined,
    drawn,
    line,
    admitted,
    waiting,
    oldestWaitSeconds,
    readAt: now,
  };
}

/**
 * One read of a room: TIME and the meta in one MULTI (the room's slot), then, if someone waits,
 * the arrival second of the oldest waiting seat (arrivals: member = epoch second, score = the first
 * seat that joined in it). null when the sale has no room loaded.
 */
export async function readRoom(redis: RedisConnection, namespace: string, saleId: number): Promise<RoomReading | null> {
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
  return roomReading({ meta, oldestArrivalSecond }, now);
}
