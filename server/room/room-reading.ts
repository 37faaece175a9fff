import type { Services } from "../services";
import { roomKeys } from "../seckill/keys";
import { shopClock } from "../seckill/clock";
import type { Frontier } from "./frontier";

/** A room's meta hash as one process last read it (server/seckill/keys.ts RoomKeys.meta). */
export interface RoomReading {
  /** this opening of the room (RoomMetaHash.epoch): a ticket of another names another room */
  epoch: number;
  opensAt: number;
  endsAt: number;
  order: "RANDOM" | "ARRIVAL";
  line: Frontier;
  /** seats in the opening's random draw; null before it, and always in ARRIVAL order */
  drawn: number | null;
  challenge: boolean;
  /** Redis's clock when read (epoch ms) */
  now: number;
}

/** The meta hash's fields parseRoomMeta reads, in its order. */
export const ROOM_META_FIELDS = ["opensAt", "endsAt", "rate", "order", "frontier", "frontierAt", "joined", "drawn", "challenge", "epoch"] as const;

/**
 * The meta hash's fields (in ROOM_META_FIELDS order) as a reading; null when the sale has no room. A RANDOM
 * room past its opening that nobody has joined since is drawn all the same: the next join's
 * script would set `drawn` to the same `joined`, since only a join changes it.
 */
export function parseRoomMeta(fields: readonly (string | null)[], now: number): RoomReading | null {
  const [opensAt, endsAt, rate, order, frontier, frontierAt, joined, drawn, challenge, epoch] = fields;
  if (!opensAt || !endsAt || !rate || Number(rate) <= 0 || !frontier || !frontierAt) return null;
  const ordered = order === "ARRIVAL" ? "ARRIVAL" : "RANDOM";
  const line = { frontier: Number(frontier), frontierAt: Number(frontierAt), rate: Number(rate), joined: Number(joined ?? 0) };
  const drawnSeats = ordered === "ARRIVAL" ? null : drawn != null ? Number(drawn) : now >= Number(opensAt) ? line.joined : null;
  return { epoch: Number(epoch ?? 0), opensAt: Number(opensAt), endsAt: Number(endsAt), order: ordered, line, drawn: drawnSeats, challenge: challenge === "1", now };
}

/** At most one read of a room's meta per process per READ_EVERY_MS, however many ask. */
const READ_EVERY_MS = 1000;
interface CachedReading {
  readAt: number;
  reading: Promise<RoomReading | null>;
  /** the reading once it is in */
  settled?: RoomReading | null;
}
const cache = new WeakMap<object, Map<number, CachedReading>>();

/**
 * Whether a cached reading must be read again at `at` (pure): once READ_EVERY_MS old, or when it
 * was an undrawn RANDOM room and the opening has come since. The draw's `joined` is the one at the
 * opening, which only a read after it knows (joins may have come since the cached one).
 */
export function readingIsStale(entry: Pick<CachedReading, "readAt" | "settled"> | undefined, at: number): boolean {
  if (!entry || at - entry.readAt >= READ_EVERY_MS) return true;
  const reading = entry.settled;
  return !!reading && reading.order === "RANDOM" && reading.drawn === null && reading.now + (at - entry.readAt) >= reading.opensAt;
}

/** The room's reading, at most READ_EVERY_MS old and read after the opening once it came (its `now` moved on by this process's clock). */
export async function readRoom(services: Pick<Services, "env" | "redis">, saleId: number, at = Date.now()): Promise<RoomReading | null> {
  let rooms = cache.get(services.redis);
  if (!rooms) cache.set(services.redis, (rooms = new Map()));
  let entry = rooms.get(saleId);
  if (readingIsStale(entry, at)) {
    const reading = Promise.all([services.redis.hmget(roomKeys(services.env.REDIS_NAMESPACE, saleId).meta, ...ROOM_META_FIELDS), shopClock(services)]).then(([fields, clock]) =>
      parseRoomMeta(fields, clock.nowMs),
    );
    const fresh: CachedReading = { readAt: at, reading };
    entry = fresh;
    rooms.set(saleId, fresh);
    void reading.then((value) => (fresh.settled = value), () => undefined);
    // A failed read is not kept: the next caller asks again.
    reading.catch(() => rooms.get(saleId) === entry && rooms.delete(saleId));
  }
  const reading = await entry!.reading;
  return reading && { ...reading, now: reading.now + (at - entry!.readAt) };
}

