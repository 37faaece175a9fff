import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A waiting-room ticket: a shopper's place in one opening of a sale's line and the moment they are
 * admitted, `<epoch>.<seq>.<position>.<admitAt>.<mac>`, the MAC binding all four to the shopper and
 * the sale under a key derived from SESSION_SECRET. So it cannot be handed to another shopper,
 * moved up the line or carried into the room's next opening (a room closed and opened again
 * restarts its seats from 1 under a new epoch, server/room/room-meta.ts), and every instance
 * checks it in process. From `admitAt` the ticket is the shopper's pass for
 * PASS_WINDOW_MS: it buys once (the purchase script spends it); before, it is refused as early.
 * `position` 0 is a place not yet drawn (a random draw at the opening): `admitAt` is 0 then too.
 */
export interface Ticket {
  /** the room's opening the seat is in: its meta's `epoch` (Redis's clock at the opening; 0 = a room opened before rooms had one) */
  epoch: number;
  /** order of arrival in the room, from 1: the shopper's seat */
  seq: number;
  /** place in line, from 1, once drawn or given; 0 before the opening's random draw */
  position: number;
  /** epoch ms (Redis's clock) from which the ticket is a pass; 0 while position is 0 */
  admitAt: number;
}

/** How long a ticket stays a pass once its holder is admitted. */
export const PASS_WINDOW_MS = 120_000;

const MAC_BYTES = 16;
export const TICKET_PATTERN = /^\d{1,15}\.\d{1,12}\.\d{1,12}\.\d{1,15}\.[A-Za-z0-9_-]{22}$/;

let derived: { secret: string; key: Buffer } | undefined;
function ticketKey(secret: string): Buffer {
  if (derived?.secret !== secret) derived = { secret, key: createHmac("sha256", secret).update("flash-sale waiting-room ticket").digest() };
  return derived.key;
}

function mac(secret: string, owner: { saleId: number; userId: number }, body: string): Buffer {
  return createHmac("sha256", ticketKey(secret)).update(`${owner.saleId}:${owner.userId}:${body}`).digest().subarray(0, MAC_BYTES);
}

export function signTicket(secret: string, owner: { saleId: number; userId: number }, ticket: Ticket): string {
  const body = `${ticket.epoch}.${ticket.seq}.${ticket.position}.${Math.round(ticket.admitAt)}`;
  return `${body}.${mac(secret, owner, body).toString("base64url")}`;
}

/** The ticket, if `text` was signed by signTicket for this shopper and sale; null otherwise. */
export function readTicket(secret: string, owner: { saleId: number; userId: number }, text: string): Ticket | null {
  if (!TICKET_PATTERN.test(text)) return null;
  const dot = text.lastIndexOf(".");
  const body = text.slice(0, dot);
  const presented = Buffer.from(text.slice(dot + 1), "base64url");
  const expected = mac(secret, owner, body);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  const [epoch, seq, position, admitAt] = body.split(".").map(Number) as [number, number, number, number];
  if (seq < 1) return null;
  return { epoch, seq, position, admitAt };
}

export type PassStanding =
  { status: "ADMITTED"; closesAt: number } | { status: "NOT_YET"; admitAt: number } | { status: "NOT_DRAWN" } | { status: "EXPIRED" };

/** What a genuine ticket is worth at `now` (epoch ms, the shop's clock). */
export function passStanding(ticket: Ticket, now: number): PassStanding {
  if (ticket.position === 0) return { status: "NOT_DRAWN" };
  if (now < ticket.admitAt) return { status: "NOT_YET", admitAt: ticket.admitAt };
  if (now >= ticket.admitAt + PASS_WINDOW_MS) return { status: "EXPIRED" };
  return { status: "ADMITTED", closesAt: ticket.admitAt + PASS_WINDOW_MS };
}
