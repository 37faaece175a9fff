import { describe, expect, it } from "vitest";
import { readJoinReply, seatStanding } from "./join";
import { parseRoomMeta, readingIsStale } from "../room/room-reading";
import { answerFromReading, readingChange } from "./status";
import { PASS_WINDOW_MS, readTicket } from "../room/ticket";
import { drawnPlace } from "../room/draw";

const SECRET = "a-session-secret-of-at-least-32-characters!";
const owner = { saleId: 3, userId: 9 };
const OPENS = 1_000_000;
const line = { frontier: 0, frontierAt: OPENS, rate: 10, joined: 50 };
const EPOCH = OPENS - 60_000;

describe("seatStanding", () => {
  it("ARRIVAL: place = seat, admitted at rate places a second from the opening, the ticket names both", () => {
    const standing = seatStanding(SECRET, owner, 20, {
      epoch: EPOCH,
      order: "ARRIVAL",
      drawn: null,
      line,
      opensAt: OPENS,
      now: OPENS - 5000,
    });
    expect(standing).toMatchObject({
      status: "WAITING",
      seat: 20,
      position: 20,
      admitAt: OPENS + 2000,
      ahead: 19,
      opensAt: OPENS,
      passWindowMs: PASS_WINDOW_MS,
    });
    expect(readTicket(SECRET, owner, standing.ticket)).toEqual({ epoch: EPOCH, seq: 20, position: 20, admitAt: OPENS + 2000 });
    // Bound to the shopper: another shopper cannot read it as theirs.
    expect(readTicket(SECRET, { ...owner, userId: 10 }, standing.ticket)).toBeNull();
  });

  it("RANDOM before the draw: place 0, moment 0", () => {
    const standing = seatStanding(SECRET, owner, 20, {
      epoch: EPOCH,
      order: "RANDOM",
      drawn: null,
      line,
      opensAt: OPENS,
      now: OPENS - 5000,
    });
    expect(standing).toMatchObject({ position: 0, admitAt: 0, ahead: 0 });
  });

  it("RANDOM after the draw: an early seat gets its drawn place, a later one its seat", () => {
    const now = OPENS + 100;
    const early = seatStanding(SECRET, owner, 20, { epoch: EPOCH, order: "RANDOM", drawn: 30, line, opensAt: OPENS, now });
    expect(early.position).toBe(drawnPlace(SECRET, owner.saleId, 20, 30));
    const late = seatStanding(SECRET, owner, 45, { epoch: EPOCH, order: "RANDOM", drawn: 30, line, opensAt: OPENS, now });
    expect(late.position).toBe(45);
    expect(late.admitAt).toBe(OPENS + 4500);
  });
});

describe("readJoinReply", () => {
  it("reads a seat, the line (frontier a real, as a string), the settings and the room's opening", () => {
    expect(readJoinReply([1, 4, -1, "2.5", 1000, 10, 4, 900, 1000, 1, "ARRIVAL", "800"])).toEqual({
      seat: 4,
      epoch: 800,
      order: "ARRIVAL",
      drawn: null,
      line: { frontier: 2.5, frontierAt: 1000, rate: 10, joined: 4 },
      opensAt: 900,
      now: 1000,
      challenge: true,
    });
    expect(readJoinReply([1, 4, 3, "0", 1000, 10, 4, 900, 1000, 0, "RANDOM", "0"])).toMatchObject({
      drawn: 3,
      order: "RANDOM",
      challenge: false,
      epoch: 0,
    });
  });

  it("NOT_WARMED is null, ENDED is ENDED, an unknown code throws", () => {
    expect(readJoinReply([0])).toBeNull();
    expect(readJoinReply([-2])).toBe("ENDED");
    expect(() => readJoinReply([7])).toThrow(/unknown code 7/);
  });
});

describe("parseRoomMeta and the status stream's change", () => {
  const fields = (drawn: string | null, rate = "10", now = OPENS - 10, epoch: string | null = String(EPOCH)) =>
    parseRoomMeta([String(OPENS), String(OPENS + 60_000), rate, "RANDOM", "0", String(OPENS), "5", drawn, "0", epoch], now);

  it("a cached reading is read again after a second, or as soon as an undrawn RANDOM room's opening has come", () => {
    const before = fields(null, "10", OPENS - 300)!;
    expect(readingIsStale(undefined, 0)).toBe(true);
    // Still being read: shared, whatever it will say.
    expect(readingIsStale({ readAt: 1000 }, 1999)).toBe(false);
    expect(readingIsStale({ readAt: 1000 }, 2000)).toBe(true);
    expect(readingIsStale({ readAt: 1000, settled: before }, 1299)).toBe(false);
    expect(readingIsStale({ readAt: 1000, settled: before }, 1300)).toBe(true);
    expect(readingIsStale({ readAt: 1000, settled: { ...before, order: "ARRIVAL", drawn: null } }, 1300)).toBe(false);
    expect(readingIsStale({ readAt: 1000, settled: fields(null, "10", OPENS + 10) }, 1500)).toBe(false);
    expect(readingIsStale({ readAt: 1000, settled: null }, 1500)).toBe(false);
  });

  it("a cached reading that predates a ticket's opening is read again at once; one that knows it, or is still in flight, is not", () => {
    const drawn = fields("5", "10", OPENS + 10)!;
    const reopened = EPOCH + 30_000;
    expect(readingIsStale({ readAt: 1000, settled: drawn }, 1100, EPOCH)).toBe(false);
    // An earlier opening's reading: the room was opened again since.
    expect(readingIsStale({ readAt: 1000, settled: drawn }, 1100, reopened)).toBe(true);
    // A later opening's: the ticket is the old one, and a read would say no more.
    expect(readingIsStale({ readAt: 1000, settled: drawn }, 1100, EPOCH - 1)).toBe(false);
    // A closed room read before the ticket's opening, and one read after (an old ticket): only the first.
    expect(readingIsStale({ readAt: 1000, settled: null, readClock: reopened - 1 }, 1100, reopened)).toBe(true);
    expect(readingIsStale({ readAt: 1000, settled: null, readClock: reopened }, 1100, reopened)).toBe(false);
    expect(readingIsStale({ readAt: 1000 }, 1100, reopened)).toBe(false);
  });

  it("is null without a room (no meta, rate 0)", () => {
    expect(parseRoomMeta([null, null, null, null, null, null, null, null, null, null], 0)).toBeNull();
    expect(fields(null, "0")).toBeNull();
  });

  it("counts a RANDOM room past its opening as drawn by the joined even before a join sets drawn", () => {
    expect(fields(null)?.drawn).toBeNull();
    expect(fields(null, "10", OPENS + 1)?.drawn).toBe(5);
    expect(fields("3", "10", OPENS + 1)?.drawn).toBe(3);
  });

  it("reads the room's opening, 0 for a room opened before rooms had one", () => {
    expect(fields(null)?.epoch).toBe(EPOCH);
    expect(fields(null, "10", OPENS - 10, null)?.epoch).toBe(0);
  });

  it("changes with the opening, the draw and the rate, not with the clock", () => {
    const before = fields(null)!;
    expect(readingChange(fields(null, "10", OPENS - 10, String(EPOCH + 1))!)).not.toBe(readingChange(before));
    expect(readingChange(fields(null, "10", OPENS - 5)!)).toBe(readingChange(before));
    expect(readingChange(fields(null, "10", OPENS + 1)!)).not.toBe(readingChange(before));
    expect(readingChange(fields(null, "20")!)).not.toBe(readingChange(before));
  });

  it("answers ENDED past the window, else the seat's standing re-signed in its opening", () => {
    const seat = { epoch: EPOCH, seq: 2 };
    expect(answerFromReading(SECRET, owner, seat, fields(null, "10", OPENS + 60_000)!)).toEqual({ status: "ENDED" });
    const answer = answerFromReading(SECRET, owner, seat, fields(null, "10", OPENS + 1)!);
    expect(answer).toMatchObject({ status: "WAITING", seat: 2, position: drawnPlace(SECRET, 3, 2, 5) });
    expect(answer?.status === "WAITING" && readTicket(SECRET, owner, answer.ticket)?.epoch).toBe(EPOCH);
  });

  it("answers ROOM_REOPENED to a seat of an earlier opening: never re-signs it into the room opened since", () => {
    const reopened = { status: "ROOM_REOPENED", epoch: EPOCH };
    expect(answerFromReading(SECRET, owner, { epoch: EPOCH - 1, seq: 2 }, fields(null, "10", OPENS + 1)!)).toEqual(reopened);
    expect(answerFromReading(SECRET, owner, { epoch: EPOCH - 1, seq: 2 }, fields(null, "10", OPENS - 10)!)).toEqual(reopened);
    expect(answerFromReading(SECRET, owner, { epoch: EPOCH - 1, seq: 2 }, fields(null, "10", OPENS + 60_000)!)).toEqual(reopened);
  });

  it("says nothing to a seat of a later opening than the reading's: a stale reading, wait for the next", () => {
    expect(answerFromReading(SECRET, owner, { epoch: EPOCH + 1, seq: 2 }, fields(null, "10", OPENS + 1)!)).toBeNull();
    expect(answerFromReading(SECRET, owner, { epoch: EPOCH + 1, seq: 2 }, fields(null, "10", OPENS + 60_000)!)).toBeNull();
  });
});
