import { describe, expect, it } from "vitest";
import { oldestWaitingSeat, roomGauges } from "./room-gauges";
import { freshRoomMeta } from "./room-meta";

const opensAt = Date.parse("2026-12-01T10:00:00Z");
const meta = (over: Record<string, string> = {}) => ({
  ...freshRoomMeta({ opensAt, endsAt: opensAt + 3600_000, rate: 10, order: "ARRIVAL", challenge: false, eligibility: 0 }, opensAt - 60_000),
  ...over,
});

describe("roomGauges", () => {
  it("is null for a room not loaded", () => {
    expect(roomGauges({ meta: {}, oldestArrivalSecond: null }, opensAt)).toBeNull();
  });

  it("counts the admitted on the line, whole places, and the rest as waiting", () => {
    const reading = roomGauges(
      { meta: meta({ joined: "100", frontier: "5", frontierAt: String(opensAt + 1000) }), oldestArrivalSecond: opensAt / 1000 - 30 },
      opensAt + 3500,
    );
    expect(reading).toMatchObject({
      rate: 10,
      order: "ARRIVAL",
      challenge: false,
      opensAt,
      joined: 100,
      drawn: null,
      admitted: 30,
      waiting: 70,
      oldestWaitSeconds: 33,
    });
    expect(reading?.line).toEqual({ frontier: 5, frontierAt: opensAt + 1000, rate: 10, joined: 100 });
  });

  it("never counts more admitted than joined, and nobody waiting then has no wait", () => {
    const reading = roomGauges(
      { meta: meta({ joined: "3", frontier: "2", frontierAt: String(opensAt) }), oldestArrivalSecond: opensAt / 1000 },
      opensAt + 60_000,
    );
    expect(reading).toMatchObject({ admitted: 3, waiting: 0, oldestWaitSeconds: 0 });
  });

  it("counts every one who joined a RANDOM room as waiting until the draw at the opening", () => {
    const undrawn = meta({ order: "RANDOM", joined: "50" });
    expect(roomGauges({ meta: undrawn, oldestArrivalSecond: opensAt / 1000 - 100 }, opensAt - 5000)).toMatchObject({
      drawn: null,
      admitted: 0,
      waiting: 50,
      oldestWaitSeconds: 95,
    });
    // Past the opening the room has drawn everyone who joined, even before a join writes `drawn`.
    expect(roomGauges({ meta: undrawn, oldestArrivalSecond: null }, opensAt + 1000)).toMatchObject({ drawn: 50 });
    const drawn = meta({ order: "RANDOM", joined: "50", drawn: "40", frontierAt: String(opensAt) });
    expect(roomGauges({ meta: drawn, oldestArrivalSecond: null }, opensAt + 2000)).toMatchObject({ drawn: 40, admitted: 20, waiting: 30 });
  });
});

describe("oldestWaitingSeat", () => {
  it("is the first place not admitted in arrival order", () => {
    expect(oldestWaitingSeat(meta({ joined: "100", frontierAt: String(opensAt) }), opensAt + 3000)).toBe(31);
  });

  it("is the earliest arrival while a draw is being admitted or before it", () => {
    expect(oldestWaitingSeat(meta({ order: "RANDOM", joined: "100" }), opensAt - 1000)).toBe(1);
    expect(oldestWaitingSeat(meta({ order: "RANDOM", joined: "100", drawn: "60" }), opensAt + 3000)).toBe(1);
    expect(oldestWaitingSeat(meta({ order: "RANDOM", joined: "100", drawn: "20" }), opensAt + 3000)).toBe(31);
  });

  it("is null when nobody waits or the room is not loaded", () => {
    expect(oldestWaitingSeat(meta({ joined: "10" }), opensAt + 60_000)).toBeNull();
    expect(oldestWaitingSeat({}, opensAt)).toBeNull();
  });
});
