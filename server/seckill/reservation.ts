import { randomBytes } from "node:crypto";

/**
 * A reservation id names its sale and its shopper, so a result query can be answered (and
 * checked for ownership) from the id alone. No `:` so it can be part of a BullMQ job id.
 */
export interface ReservationRef {
  saleId: number;
  userId: number;
}

const RESERVATION_ID = /^(\d{1,10})-(\d{1,10})-([0-9a-f]{16})$/;

export function newReservationId(saleId: number, userId: number): string {
  return `${saleId}-${userId}-${randomBytes(8).toString("hex")}`;
}

export function parseReservationId(id: string): ReservationRef | null {
  const match = RESERVATION_ID.exec(id);
  if (!match) return null;
  return { saleId: Number(match[1]), userId: Number(match[2]) };
}

export const RESERVATION_ID_PATTERN = RESERVATION_ID;

export function createOrderJobId(reservationId: string): string {
  return `order-${reservationId}`;
}
