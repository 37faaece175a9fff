import type { Services } from "../platform/services";
import { readRoom, type RoomReading } from "../room/room-reading";
import { seatStanding, type RoomAnswer } from "./join";
import type { Ticket } from "../room/ticket";

/**
 * How often a room with listeners is looked at: the process's sold-out flag four times a second,
 * so a sell-out reaches every stream about a second after it (room-stream.int.test.ts holds it to
 * two on a busy machine); the reading behind it is read from
 * Redis at most once a second (room-reading.ts).
 */
const LOOK_EVERY_MS = 250;

/** What a listener's answer depends on, as one key: equal keys, equal answers. */
export function roomChangeKey(reading: RoomReading | null, soldOut: boolean): string | null {
  if (soldOut) return "SOLD_OUT";
  if (!reading) return null;
  return [readingChange(reading), reading.now >= reading.endsAt ? "ENDED" : "OPEN"].join("|");
}

/**
 * One watch per process and room while anyone listens: every LOOK_EVERY_MS it looks at the room's
 * shared reading and the sold-out flag, and wakes the listeners whose answer would change. Listeners
 * wait grouped by the key they last saw, so a look costs one comparison per group, not per
 * shopper: a waiting shopper costs nothing per second, in Redis or in this process.
 */
class RoomWatch {
  /** key the listeners last saw -> their wake-ups */
  private readonly listeners = new Map<string | null, Set<() => void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly services: Pick<Services, "env" | "redis" | "soldOut">,
    private readonly saleId: number,
  ) {}

  /** Resolves at the first look whose key differs from `since`, or on abort. */
  nextChange(since: string | null, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let group = this.listeners.get(since);
      if (!group) this.listeners.set(since, (group = new Set()));
      const wake = () => {
        group.delete(wake);
        if (group.size === 0 && this.listeners.get(since) === group) this.listeners.delete(since);
        signal?.removeEventListener("abort", wake);
        if (this.listeners.size === 0) this.stop();
        resolve();
      };
      group.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
      this.timer ??= setInterval(() => void this.look(), LOOK_EVERY_MS);
    });
  }

  private async look() {
    const soldOut = this.services.soldOut.isSoldOut(this.saleId);
    const reading = soldOut ? null : await readRoom(this.services, this.saleId).catch(() => null);
    const key = roomChangeKey(reading, soldOut);
    if (key === null) return;
    for (const [since, group] of [...this.listeners]) if (since !== key) for (const wake of [...group]) wake();
  }

  private stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const watches = new WeakMap<object, Map<number, RoomWatch>>();

function watchOf(services: Pick<Services, "env" | "redis" | "soldOut">, saleId: number): RoomWatch {
  let rooms = watches.get(services.redis);
  if (!rooms) watches.set(services.redis, (rooms = new Map()));
  let watch = rooms.get(saleId);
  if (!watch) rooms.set(saleId, (watch = new RoomWatch(services, saleId)));
  return watch;
}

/**
 * What changes a waiting shopper's answer: the room's opening, the draw, the rate and the line's anchor a rate
 * change rebases (warm-up), the sale's window. A join moves the anchor along the same line, which
 * changes no one's moment, so the anchor counts only with a rate change.
 */
export function readingChange(reading: RoomReading): string {
  return [reading.epoch, reading.drawn, reading.line.rate, reading.opensAt, reading.endsAt].join("|");
}

/**
 * A seat's answer from a reading (pure): ENDED past the window, otherwise its standing re-signed.
 * A reading of a later opening (the room closed and opened again since the ticket) answers
 * ROOM_REOPENED: the seat is gone, and re-signing it would carry it into the new line. A reading of
 * an earlier opening is a stale one (a moment old, from before the ticket's opening): null, wait.
 */
export function answerFromReading(
  secret: string,
  owner: { saleId: number; userId: number },
  ticket: Pick<Ticket, "epoch" | "seq">,
  reading: RoomReading,
): RoomAnswer | null {
  if (reading.epoch > ticket.epoch) return { status: "ROOM_REOPENED", epoch: reading.epoch };
  if (reading.epoch < ticket.epoch) return null;
  if (reading.now >= reading.endsAt) return { status: "ENDED" };
  return seatStanding(secret, owner, ticket.seq, reading);
}

/**
 * room.onStatus: the shopper's answer at connect, then again only when it changes (the draw
 * re-signs the ticket with its place, a rate change re-times it, SOLD_OUT, ENDED and ROOM_REOPENED,
 * which end it). A reading that predates the ticket's opening answers nothing: the next one will.
 * The sold-out flag is the process's own, kept in step by the broadcasts (seckill/sold-out.ts).
 */
export async function* watchRoom(
  services: Pick<Services, "env" | "redis" | "soldOut">,
  input: { userId: number; saleId: number; ticket: Ticket },
  signal?: AbortSignal,
): AsyncGenerator<RoomAnswer> {
  const owner = { saleId: input.saleId, userId: input.userId };
  const watch = watchOf(services, input.saleId);
  let last: string | null = null;
  while (!signal?.aborted) {
    const soldOut = services.soldOut.isSoldOut(input.saleId);
    const reading = soldOut ? null : await readRoom(services, input.saleId).catch(() => null);
    const key = roomChangeKey(reading, soldOut);
    if (key !== null && key !== last) {
      const answer =
        soldOut || !reading
          ? { status: "SOLD_OUT" as const }
          : answerFromReading(services.env.SESSION_SECRET, owner, input.ticket, reading);
      // A reading a moment old may predate the seat's own opening: wait for the next change.
      if (answer !== null) {
        yield answer;
        if (answer.status !== "WAITING") return;
      }
      last = key;
    }
    await watch.nextChange(last, signal);
  }
}
