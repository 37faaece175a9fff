import { describe, expect, it } from "vitest";
import { freshRoomMeta, planRoomLoad, roomSettingsOf, seatHashKeys, type RoomSettings } from "./room-meta";
import { admittedBy } from "./frontier";
import { roomKeys } from "../sale-redis/keys";
import { ELIGIBILITY } from "../sale-redis/eligibility";

const opensAt = Date.parse("2026-12-01T10:00:00Z");
const settings = (over: Partial<RoomSettings> = {}): RoomSettings => ({
  opensAt,
  endsAt: opensAt + 3600_000,
  rate: 10,
  order: "RANDOM",
  challenge: false,
  eligibility: ELIGIBILITY.ELIGIBLE,
  ...over,
});

describe("roomSettingsOf", () => {
  const sale = {
    startsAt: new Date(opensAt),
    endsAt: new Date(opensAt + 1000),
    arrivalOrder: "ARRIVAL" as const,
    purchaseChallenge: true,
    requireRealName: false,
    minMemberLevel: 0,
    requireVerifiedContact: false,
    accountsCreatedBefore: null,
  };
  it("gives a sale a room exactly when its admission rate is above 0", () => {
    expect(roomSettingsOf({ ...sale, admissionRate: 0 })).toBeNull();
    expect(roomSettingsOf({ ...sale, admissionRate: 5 })).toEqual({
      opensAt,
      endsAt: opensAt + 1000,
      rate: 5,
      order: "ARRIVAL",
      challenge: true,
      eligibility: ELIGIBILITY.ELIGIBLE,
    });
  });

  it("judges a shopper not listed as the sale judges a new account", () => {
    expect(roomSettingsOf({ ...sale, admissionRate: 5, minMemberLevel: 2 })?.eligibility).toBe(ELIGIBILITY.MEMBER_LEVEL_TOO_LOW);
    expect(roomSettingsOf({ ...sale, admissionRate: 5, requireRealName: true })?.eligibility).toBe(ELIGIBILITY.REAL_NAME_REQUIRED);
    expect(roomSettingsOf({ ...sale, admissionRate: 5, requireVerifiedContact: true })?.eligibility).toBe(ELIGIBILITY.CONTACT_NOT_VERIFIED);
    expect(roomSettingsOf({ ...sale, admissionRate: 5, accountsCreatedBefore: new Date(opensAt) })?.eligibility).toBe(
      ELIGIBILITY.ACCOUNT_TOO_NEW,
    );
  });
});

describe("planRoomLoad", () => {
  it("opens a new room with nobody in it and the line anchored at the opening", () => {
    expect(planRoomLoad(settings({ challenge: true }), null, opensAt - 60_000)).toEqual({
      action: "OPEN",
      meta: {
        epoch: String(opensAt - 60_000),
        opensAt: String(opensAt),
        endsAt: String(opensAt + 3600_000),
        rate: "10",
        order: "RANDOM",
        frontier: "0",
        frontierAt: String(opensAt),
        joined: "0",
        challenge: "1",
        eligibility: "0",
      },
    });
  });

  it("does nothing for a sale that has no room and had none; closes one whose rate became 0", () => {
    expect(planRoomLoad(null, null, opensAt)).toEqual({ action: "NONE" });
    expect(planRoomLoad(null, { ...freshRoomMeta(settings(), opensAt - 3600_000), joined: "40" }, opensAt)).toEqual({ action: "CLOSE" });
  });

  it("keeps joined, drawn and the line of a warm room whose rate did not change", () => {
    const stored = {
      ...freshRoomMeta(settings(), opensAt - 3600_000),
      frontier: "25.5",
      frontierAt: String(opensAt + 2000),
      joined: "300",
      drawn: "200",
    };
    const plan = planRoomLoad(settings({ challenge: true, endsAt: opensAt + 7200_000 }), stored, opensAt + 5000);
    expect(plan).toEqual({
      action: "UPDATE",
      rebased: false,
      fields: {
        opensAt: String(opensAt),
        endsAt: String(opensAt + 7200_000),
        rate: "10",
        order: "RANDOM",
        challenge: "1",
        eligibility: "0",
      },
    });
  });

  it("re-times everyone waiting at a new rate from now, keeping who is admitted", () => {
    const stored = { ...freshRoomMeta(settings(), opensAt - 3600_000), frontier: "20", frontierAt: String(opensAt + 2000), joined: "300" };
    const now = opensAt + 4000;
    const plan = planRoomLoad(settings({ rate: 50 }), stored, now);
    expect(plan).toMatchObject({ action: "UPDATE", rebased: true, fields: { rate: "50", frontier: "40", frontierAt: String(now) } });
    // Ten seconds on, the new line has admitted 500 more places than at the change.
    const line = { frontier: 40, frontierAt: now, rate: 50, joined: 10_000 };
    expect(admittedBy(line, now + 10_000)).toBe(540);
  });

  it("moves the anchor of a line that has not started with the opening", () => {
    const stored = { ...freshRoomMeta(settings(), opensAt - 3600_000), joined: "12" };
    const later = opensAt + 600_000;
    expect(planRoomLoad(settings({ opensAt: later }), stored, opensAt - 60_000)).toMatchObject({
      action: "UPDATE",
      rebased: false,
      fields: { opensAt: String(later), frontier: "0", frontierAt: String(later) },
    });
    // A rate change before the opening only changes the rate: nobody is admitted yet.
    expect(planRoomLoad(settings({ rate: 99 }), stored, opensAt - 60_000)).toEqual({
      action: "UPDATE",
      rebased: false,
      fields: {
        opensAt: String(opensAt),
        endsAt: String(opensAt + 3600_000),
        rate: "99",
        order: "RANDOM",
        challenge: "0",
        eligibility: "0",
      },
    });
  });

  it("holds a started line until a later new opening, keeping who was admitted", () => {
    const stored = { ...freshRoomMeta(settings(), opensAt - 3600_000), frontier: "10", frontierAt: String(opensAt + 1000), joined: "100" };
    const later = opensAt + 600_000;
    const plan = planRoomLoad(settings({ opensAt: later }), stored, opensAt + 2000);
    expect(plan).toMatchObject({ action: "UPDATE", rebased: true, fields: { frontier: "20", frontierAt: String(later) } });
  });
});

describe("seatHashKeys", () => {
  it("names every seats hash a shopper id up to the highest can be in", () => {
    const keys = roomKeys("ns", 3);
    expect(seatHashKeys("ns", 3, 0)).toEqual([keys.seats(0)]);
    expect(seatHashKeys("ns", 3, 300)).toEqual([keys.seats(0), keys.seats(128), keys.seats(256)]);
    expect(seatHashKeys("ns", 3, 300)).toContain(keys.seats(300));
  });
});
