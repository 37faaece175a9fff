import { describe, expect, it } from "vitest";
import { parseStoredTicket, roomMoment, seatIdentity, waitParts } from "./room-wait";

const opensAt = 1_700_000_000_000;
// Rate 2 per second from the opening, 10 seats.
const line = { frontier: 0, frontierAt: opensAt, rate: 2, joined: 10 };
const seat = (position: number) => ({
  position,
  admitAt: position === 0 ? 0 : opensAt + position * 500,
  line,
  opensAt,
  passWindowMs: 120_000,
});

describe("roomMoment", () => {
  it("is the draw still to come for a seat without a place", () => {
    expect(roomMoment(seat(0), opensAt - 5000)).toEqual({ kind: "DRAW_PENDING", drawAt: opensAt });
  });

  it("counts place and wait down along the line", () => {
    expect(roomMoment(seat(7), opensAt - 1000)).toEqual({ kind: "WAITING", ahead: 6, waitMs: 4500 });
    expect(roomMoment(seat(7), opensAt + 1000)).toEqual({ kind: "WAITING", ahead: 4, waitMs: 2500 });
    expect(roomMoment(seat(7), opensAt + 3400)).toEqual({ kind: "WAITING", ahead: 0, waitMs: 100 });
  });

  it("is a pass from admitAt for the pass window, then expired", () => {
    expect(roomMoment(seat(7), opensAt + 3500)).toEqual({ kind: "ADMITTED", closesInMs: 120_000 });
    expect(roomMoment(seat(7), opensAt + 3500 + 119_999)).toEqual({ kind: "ADMITTED", closesInMs: 1 });
    expect(roomMoment(seat(7), opensAt + 3500 + 120_000)).toEqual({ kind: "EXPIRED" });
  });
});

describe("waitParts", () => {
  it("says seconds under a minute and minutes above, rounded up, never 0", () => {
    expect(waitParts(100)).toEqual({ unit: "s", count: 1 });
    expect(waitParts(12_000)).toEqual({ unit: "s", count: 12 });
    expect(waitParts(59_001)).toEqual({ unit: "min", count: 1 });
    expect(waitParts(150_000)).toEqual({ unit: "min", count: 3 });
  });
});

describe("parseStoredTicket", () => {
  const stored = { status: "WAITING", ticket: "5.1.1.1.x", epoch: 5, seat: 1, ahead: 0, challenge: { x: 1 }, ...seat(1) };
  it("reads back what was stored", () => {
    expect(parseStoredTicket(JSON.stringify(stored))).toEqual(stored);
  });
  it("refuses anything else", () => {
    expect(parseStoredTicket(null)).toBeNull();
    expect(parseStoredTicket("not json")).toBeNull();
    expect(parseStoredTicket("null")).toBeNull();
    expect(parseStoredTicket(JSON.stringify({ ...stored, status: "SOLD_OUT" }))).toBeNull();
    expect(parseStoredTicket(JSON.stringify({ ...stored, line: { ...line, rate: "2" } }))).toBeNull();
    // Stored before tickets named the room's opening.
    expect(parseStoredTicket(JSON.stringify({ ...stored, epoch: undefined }))).toBeNull();
  });
});

describe("seatIdentity", () => {
  it("tells the same seat number of two openings of the room apart", () => {
    expect(seatIdentity({ epoch: 5, seat: 1 })).toBe(seatIdentity({ epoch: 5, seat: 1 }));
    expect(seatIdentity({ epoch: 6, seat: 1 })).not.toBe(seatIdentity({ epoch: 5, seat: 1 }));
  });
});
