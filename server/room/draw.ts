import { createHmac } from "node:crypto";

/**
 * The random draw of a room in random order: the shoppers who joined before the opening (seats
 * 1..drawn) get their places from a keyed permutation of 1..drawn, a Feistel network over the
 * next power of four, cycle-walked back into range. A seat's place is computed on its own, in any
 * process, without a list of who is in the room; the key is secret (SESSION_SECRET, the sale), so
 * nobody can work out a seat's place before the server tells them, or pick a seat for its place.
 * Seats after the draw keep their arrival order: place = seat.
 */
const ROUNDS = 4;

function roundKey(secret: string, saleId: number): Buffer {
  return createHmac("sha256", secret).update(`flash-sale waiting-room draw ${saleId}`).digest();
}

let cached: { secret: string; saleId: number; key: Buffer } | undefined;

function feistel(key: Buffer, value: number, halfBits: number): number {
  const mask = 2 ** halfBits - 1;
  let left = Math.floor(value / 2 ** halfBits);
  let right = value % 2 ** halfBits;
  for (let round = 0; round < ROUNDS; round++) {
    const digest = createHmac("sha256", key).update(`${round}:${right}`).digest();
    const f = digest.readUInt32BE(0) & mask;
    [left, right] = [right, (left ^ f) >>> 0];
  }
  return left * 2 ** halfBits + right;
}

/** The place (1..drawn) of `seat` (1..drawn) in the draw of this sale's room. */
export function drawnPlace(secret: string, saleId: number, seat: number, drawn: number): number {
  if (!Number.isInteger(seat) || seat < 1 || seat > drawn) throw new RangeError(`seat ${seat} is not in 1..${drawn}`);
  if (drawn === 1) return 1;
  if (cached?.secret !== secret || cached.saleId !== saleId) cached = { secret, saleId, key: roundKey(secret, saleId) };
  let halfBits = 1;
  while (2 ** (2 * halfBits) < drawn) halfBits++;
  // Cycle-walking: a permutation of 0..4^h-1 applied until it lands in 0..drawn-1, itself a permutation.
  let value = seat - 1;
  do value = feistel(cached.key, value, halfBits);
  while (value >= drawn);
  return value + 1;
}

/** A seat's place in line: drawn if the room drew its first seats, otherwise its arrival order. */
export function placeOf(secret: string, saleId: number, seat: number, drawn: number | null): number {
  return drawn !== null && seat <= drawn ? drawnPlace(secret, saleId, seat, drawn) : seat;
}
