import type { Services } from "../platform/services";
import { roomKeys } from "../sale-redis/keys";
import { shopClock } from "../sale-redis/clock";
import type { Frontier } from "./frontier";

/** A room's meta hash as one process last read it (server/sale-redis/keys.ts RoomKeys.meta). */
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
export const ROOM_META_FIELDS = [
  "opensAt",
  "endsAt",
  "rate",
  "order",
  "frontier",
  "frontierAt",
  "joined",
  "drawn",
  "challenge",
  "epoch",
] as const;

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
  return {
    epoch: Number(epoch ?? 0),
    opensAt: Number(opensAt),
    endsAt: Number(endsAt),
    order: ordered,
    line,
    drawn: drawnSeats,
    challenge: challenge === "1",
    now,
  };
}

/** At most one read of a room's meta per process per READ_EVERY_MS, however many ask. */
const READ_EVERY_MS = 1000;
interface CachedReading {
  readAt: number;
  reading: Promise<RoomReading | null>;
  /** the reading once it is in */
  settled?: RoomReading | null;
  /** Redis's clock when it was read, once it is in (a closed room's null reading has no `now`) */
  readClock?: number;
}
const cache = new WeakMap<object, Map<number, CachedReading>>();

/**
 * Whether a settled reading cannot know of the room's opening `epoch` (a genuine ticket's): it is
 * an earlier opening's, or a closed room's read before that opening by Redis's clock. A reading
 * still in flight is not judged here.
 */
function readingPredates(entry: Pick<CachedReading, "settled" | "readClock">, epoch: number): boolean {
  if (entry.settled === undefined) return false;
  return entry.settled ? entry.settled.epoch < epoch : (entry.readClock ?? 0) < epoch;
}

/**
 * Whether a cached reading must be read again at `at` (pure): once READ_EVERY_MS old, or when it
 * was an undrawn RANDOM room and the opening has come since. The draw's `joined` is the one at the
 * opening, which only a read after it knows (joins may have come since the cached one). Given the
 * opening a genuine ticket names (`opening`), also when the reading predates it: a room opened
 * again since must not refuse its tickets for up to a second.
 */
export function readingIsStale(
  entry: Pick<CachedReading, "readAt" | "settled" | "readClock"> | undefined,
  at: number,
  opening?: number,
): boolean {
  if (!entry || at - entry.readAt >= READ_EVERY_MS) return true;
  if (opening !== undefined && readingPredates(entry, opening)) return true;
  const reading = entry.settled;
  return !!reading && reading.order === "RANDOM" && reading.drawn === null && reading.now + (at - entry.readAt) >= reading.opensAt;
}

/** One read of the room's meta, cached from now on; settled and readClock are set before any awaiter of it resumes. */
function startReading(
  services: Pick<Services, "env" | "redis">,
  rooms: Map<number, CachedReading>,
  saleId: number,
  at: number,
): CachedReading {
  const read = Promise.all([
    services.redis.hmget(roomKeys(services.env.REDIS_NAMESPACE, saleId).meta, ...ROOM_META_FIELDS),
    shopClock(services),
  ]);
  const fresh: CachedReading = {
    readAt: at,
    reading: read.then(([fields, clock]) => {
      fresh.readClock = clock.nowMs;
      return (fresh.settled = parseRoomMeta(fields, clock.nowMs));
    }),
  };
  rooms.set(saleId, fresh);
  // A failed read is not kept: the next caller asks again.
  fresh.reading.catch(() => rooms.get(saleId) === fresh && rooms.delete(saleId));
  return fresh;
}

/**
 * The room's reading, at most READ_EVERY_MS old and read after the opening once it came (its `now`
 * moved on by this process's clock). With `opening` (the epoch of a ticket whose MAC is checked),
 * a reading that predates it is read again, once, so the ticket is judged by a reading that knows it.
 */
export async function readRoom(
  services: Pick<Services, "env" | "redis">,
  saleId: number,
  at = Date.now(),
  opening?: number,
): Promise<RoomReading | null> {
  let rooms = cache.get(services.redis);
  if (!rooms) cache.set(services.redis, (rooms = new Map()));
  let entry = rooms.get(saleId);
  const readHere = readingIsStale(entry, at, opening);
  if (readHere) entry = startReading(services, rooms, saleId, at);
  let reading = await entry!.reading;
  // A read already in flight may have begun before the opening: the one fresh read is ours.
  if (!readHere && opening !== undefined && readingPredates(entry!, opening)) {
    entry = rooms.get(saleId);
    if (readingIsStale(entry, at, opening)) entry = startReading(services, rooms, saleId, at);
    reading = await entry!.reading;
  }
  return reading && { ...reading, now: reading.now + (at - entry!.readAt) };
}
