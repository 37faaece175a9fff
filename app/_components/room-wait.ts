import { aheadOf } from "@/server/room/frontier";
import type { Waiting } from "@/server/room-join/join";

/**
 * Where a shopper in the waiting room stands at `now` (the shop's clock), from their ticket's
 * answer alone: the page counts place and wait down itself, with no request per second.
 */
export type RoomMoment =
  /** a RANDOM room before its opening: places are drawn then */
  | { kind: "DRAW_PENDING"; drawAt: number }
  | { kind: "WAITING"; ahead: number; waitMs: number }
  /** the ticket is a pass: Buy, until `closesInMs` from now */
  | { kind: "ADMITTED"; closesInMs: number }
  | { kind: "EXPIRED" };

export function roomMoment(waiting: Pick<Waiting, "position" | "admitAt" | "line" | "opensAt" | "passWindowMs">, now: number): RoomMoment {
  if (waiting.position === 0) return { kind: "DRAW_PENDING", drawAt: waiting.opensAt };
  if (now < waiting.admitAt) return { kind: "WAITING", ahead: aheadOf(waiting.line, waiting.position, now), waitMs: waiting.admitAt - now };
  const closesAt = waiting.admitAt + waiting.passWindowMs;
  if (now < closesAt) return { kind: "ADMITTED", closesInMs: closesAt - now };
  return { kind: "EXPIRED" };
}

/** The wait as a person says it: whole seconds under a minute, whole minutes above (rounded up). */
export function waitParts(waitMs: number): { unit: "s" | "min"; count: number } {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return seconds < 60 ? { unit: "s", count: seconds } : { unit: "min", count: Math.ceil(seconds / 60) };
}

/** The ticket is kept per sale and shopper, so a reload shows the same place before room.join answers. */
export function storedTicketKey(saleId: number, userId: number): string {
  return `room-ticket:${saleId}:${userId}`;
}

/** A seat in one opening of the room: a room opened again gives its seat numbers out afresh. */
export function seatIdentity(waiting: Pick<Waiting, "epoch" | "seat">): string {
  return `${waiting.epoch}:${waiting.seat}`;
}

/** A stored answer read back, or null for anything that is not one (another version, a hand edit). */
export function parseStoredTicket(text: string | null): Waiting | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<Waiting> | null;
    if (value?.status !== "WAITING" || typeof value.ticket !== "string") return null;
    const numbers = [
      value.epoch,
      value.seat,
      value.position,
      value.admitAt,
      value.opensAt,
      value.passWindowMs,
      value.line?.frontier,
      value.line?.frontierAt,
      value.line?.rate,
      value.line?.joined,
    ];
    if (!numbers.every((n) => typeof n === "number" && Number.isFinite(n))) return null;
    return value as Waiting;
  } catch {
    return null;
  }
}
