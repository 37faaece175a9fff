import type { Services } from "../services";
import { readRoom, type RoomReading } from "./room-reading";
import { seatStanding, type RoomAnswer } from "./join";
import type { Ticket } from "./ticket";

/**
 * How often a room's listeners are woken to look at the process's sold-out flag and the room's
 * shared reading: four times a second, so a sell-out reaches every stream well within a second,
 * while the reading behind it is still read from Redis at most once a second (room-reading.ts).
 */
const LOOK_EVERY_MS = 250;

/**
 * One shared ticker per process and room: it wakes every listener of the room every
 * LOOK_EVERY_MS while anyone listens, and each looks at the same cached reading (room-reading.ts: at most one
 * Redis read per room per second per process, never one per shopper).
 */
class RoomTicker {
  private readonly waiting = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  nextTick(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.waiting.delete(wake);
        signal?.removeEventListener("abort", wake);
        if (this.waiting.size === 0) this.stop();
        resolve();
      };
      this.waiting.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
      this.timer ??= setInterval(() => [...this.waiting].forEach((w) => w()), LOOK_EVERY_MS);
    });
  }

  private stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const tickers = new WeakMap<object, Map<number, RoomTicker>>();

function tickerOf(services: Pick<Services, "redis">, saleId: number): RoomTicker {
  let rooms = tickers.get(services.redis);
  if (!rooms) tickers.set(services.redis, (rooms = new Map()));
  let ticker = rooms.get(saleId);
  if (!ticker) rooms.set(saleId, (ticker = new RoomTicker()));
  return ticker;
}

/**
 * What changes a waiting shopper's answer: the draw, the rate and the line's anchor a rate
 * change rebases (warm-up), the sale's window. A join moves the anchor along the same line, which
 * changes no one's moment, so the anchor counts only with a rate change.
 */
export function readingChange(reading: RoomReading): string {
  return [reading.drawn, reading.line.rate, reading.opensAt, reading.endsAt].join("|");
}

/** A seat's answer from a reading (pure): ENDED past the window, otherwise its standing re-signed. */
export function answerFromReading(secret: string, owner: { saleId: number; userId: number }, seat: number, reading: RoomReading): RoomAnswer {
  if (reading.now >= reading.endsAt) return { status: "ENDED" };
  return seatStanding(secret, owner, seat, reading);
}

/**
 * room.onStatus: the shopper's answer at connect, then again only when it changes (the draw
 * re-signs the ticket with its place, a rate change re-times it, SOLD_OUT, ENDED, which end it).
 * The sold-out flag is the process's own, kept in step by the broadcasts (seckill/sold-out.ts).
 */
export async function* watchRoom(
  services: Pick<Services, "env" | "redis" | "soldOut">,
  input: { userId: number; saleId: number; ticket: Ticket },
  signal?: AbortSignal,
): AsyncGenerator<RoomAnswer> {
  const owner = { saleId: input.saleId, userId: input.userId };
  const ticker = tickerOf(services, input.saleId);
  let last: string | null = null;
  while (!signal?.aborted) {
    if (services.soldOut.isSoldOut(input.saleId)) {
      yield { status: "SOLD_OUT" };
      return;
    }
    const reading = await readRoom(services, input.saleId).catch(() => null);
    if (reading) {
      const change = readingChange(reading);
      if (change !== last) {
        const answer = answerFromReading(services.env.SESSION_SECRET, owner, input.ticket.seq, reading);
        yield answer;
        if (answer.status !== "WAITING") return;
        last = change;
      }
    }
    await ticker.nextTick(signal);
  }
}

