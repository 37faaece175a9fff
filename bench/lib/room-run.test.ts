import { describe, expect, it } from "vitest";
import { presentedPasses, roomChecks } from "./room-run";
import { checkAdmittedPerSecond, checkPlacesIncrease } from "./room-checks";
import type { RoomCrowdRun, RoomTicket } from "./room-crowd";
import { latencySummary } from "./stats";

const OPENS = 1_000_000;

function crowd(overrides: Partial<RoomCrowdRun> = {}): RoomCrowdRun {
  const tickets: RoomTicket[] = Array.from({ length: 4000 }, (_, i) => ({
    shopper: i,
    seat: i + 1,
    position: i + 1,
    admitAt: OPENS + i,
    answeredAt: OPENS + 2500,
    seatedAt: OPENS,
    ahead: i,
    purchase: i < 3000 ? "QUEUED" : "SOLD_OUT",
    early: 0,
  }));
  return {
    arrivals: 4000,
    startedAt: OPENS,
    seconds: 4,
    httpRequests: 8000,
    finalOutcomes: { QUEUED: 3000, SOLD_OUT: 1000 },
    joinOutcomes: { WAITING: 4000 },
    purchaseOutcomes: { QUEUED: 3000, SOLD_OUT: 1000 },
    unanswered: 0,
    errors: 0,
    timeouts: 0,
    joinsPerSecond: 4000,
    latency: { join: latencySummary([1]), rejoin: latencySummary([]), purchase: latencySummary([1]) },
    tickets,
    queued: tickets.slice(0, 3000).map((t) => ({ reservationId: `r${t.seat}`, shopper: t.shopper })),
    replays: { TICKET_USED: 5, UNIT_LIMIT_REACHED: 3 },
    refusedEarly: 0,
    challenges: null,
    ...overrides,
  };
}

function failed(run: RoomCrowdRun) {
  return roomChecks(
    run,
    checkAdmittedPerSecond(presentedPasses(run.tickets), 1000, OPENS),
    { ...checkPlacesIncrease(run.tickets.filter((t) => t.ahead > 0)), atTheFront: 1 },
    1000,
  )
    .filter((c) => !c.ok)
    .map((c) => c.name);
}

describe("roomChecks", () => {
  it("holds for a crowd admitted at the rate, every arrival answered, no ticket bought twice", () => {
    expect(failed(crowd())).toEqual([]);
  });

  it("counts whole seconds by the room's clock when the answers arrived seconds late", () => {
    const admission = checkAdmittedPerSecond(presentedPasses(crowd().tickets), 1000, OPENS);
    expect(admission.checkedSeconds).toBe(2);
    expect(admission.ok).toBe(true);
  });

  it("fails an unanswered arrival, an odd final answer, an early refusal and a replay that bought", () => {
    expect(failed(crowd({ unanswered: 1 }))).toEqual(["room: arrivals without an answer"]);
    expect(failed(crowd({ finalOutcomes: { QUEUED: 3000, TICKET_EXPIRED: 1000 } }))[0]).toMatch(/final answers/);
    expect(failed(crowd({ refusedEarly: 2 }))[0]).toMatch(/refused as early/);
    expect(failed(crowd({ replays: { QUEUED: 1 } }))[0]).toMatch(/replayed/);
  });

  it("fails a shopper reserving twice and a seat given twice", () => {
    const run = crowd();
    run.queued.push({ reservationId: "again", shopper: 0 });
    run.tickets[1] = { ...run.tickets[1]!, seat: 1 };
    expect(failed(run)).toEqual(["room: seats given twice", "room: shoppers admitted and reserving twice"]);
  });
});
