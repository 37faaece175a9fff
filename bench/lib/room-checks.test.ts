import { describe, expect, it } from "vitest";
import {
  arrivalDueOffsetMs,
  checkAdmittedPerSecond,
  checkPlacesIncrease,
  longestWaitingStretch,
  ticketsForRound,
  waitingOverTime,
  type PresentedPass,
} from "./room-checks";

const OPENS = 1_000_000;

/** Passes admitted at `rate` per second from `fromMs` after the opening, `count` of them, the first `reserved` reserving. */
function line(rate: number, count: number, reserved: number, fromMs = 0): PresentedPass[] {
  // Everyone seated at the opening: shoppers wait all along.
  return Array.from({ length: count }, (_, i) => ({
    seatedAt: OPENS,
    admitAt: OPENS + fromMs + (i * 1000) / rate,
    admitted: true,
    reserved: i < reserved,
  }));
}

describe("arrivalDueOffsetMs", () => {
  it("spaces arrivals evenly over the arrival seconds", () => {
    expect([0, 1, 2500, 4999].map((i) => arrivalDueOffsetMs(i, 5000, 1))).toEqual([0, 0.2, 500, 999.8]);
    expect(arrivalDueOffsetMs(10, 100, 2)).toBe(200);
  });
});

describe("checkAdmittedPerSecond", () => {
  it("checks every whole second while stock remained, and passes a line at the rate", () => {
    const check = checkAdmittedPerSecond(line(2000, 10_000, 7000), 2000, OPENS);
    // Stock remained 3.5 s: seconds 0, 1 and 2 are whole; 3 is cut by the sell-out, 4 after it.
    expect(check.rows.filter((r) => r.checked).map((r) => r.second)).toEqual([0, 1, 2]);
    expect(check.checkedSeconds).toBe(3);
    expect(check.ok).toBe(true);
    expect(check.rows[1]!.admitted).toBe(2000);
  });

  it("fails a second more than 5 % off the rate", () => {
    const passes = line(2000, 8000, 8000);
    // 150 of second 1's passes refused as early: 1,850 admitted, 7.5 % short.
    for (let i = 2000; i < 2150; i++) passes[i]!.admitted = false;
    const check = checkAdmittedPerSecond(passes, 2000, OPENS);
    expect(check.ok).toBe(false);
    expect(check.rows.find((r) => !r.ok)?.second).toBe(1);
  });

  it("passes a second within 5 % (a line at 1,960/s against 2,000)", () => {
    expect(checkAdmittedPerSecond(line(1960, 8000, 8000), 2000, OPENS).ok).toBe(true);
    expect(checkAdmittedPerSecond(line(1880, 8000, 8000), 2000, OPENS).ok).toBe(false);
  });

  it("does not count a second the line started late in", () => {
    const check = checkAdmittedPerSecond(line(1000, 3000, 3000, 400), 1000, OPENS);
    expect(check.rows[0]!.checked).toBe(false);
    expect(check.rows[1]!.checked).toBe(true);
  });

  it("with no whole second (stock sold within one), checks the span as a rate", () => {
    const check = checkAdmittedPerSecond(line(2000, 5000, 500), 2000, OPENS);
    expect(check.checkedSeconds).toBe(0);
    expect(check.span?.admitted).toBe(500);
    expect(check.span?.perSecond).toBeCloseTo(2000, -1);
    expect(check.ok).toBe(true);
    expect(checkAdmittedPerSecond(line(3000, 5000, 500), 2000, OPENS).ok).toBe(false);
  });

  it("fails when nobody was admitted", () => {
    expect(checkAdmittedPerSecond([{ seatedAt: OPENS, admitAt: OPENS, admitted: false, reserved: false }], 10, OPENS).ok).toBe(false);
  });

  it("checks only while shoppers waited: joins slower than the rate are admitted on arrival", () => {
    // 300 joins/s against a rate of 2,000: each shopper admitted the moment they join.
    const onArrival = line(300, 3000, 3000).map((p) => ({ ...p, seatedAt: p.admitAt }));
    const check = checkAdmittedPerSecond(onArrival, 2000, OPENS);
    expect(check.checkedSeconds).toBe(0);
    expect(check.span?.checked).toBe(false);
    expect(check.ok).toBe(true);
    // Joins at 5,000/s seated ahead of a 2,000/s line: the line limits, and is checked.
    const queued = line(2000, 10_000, 10_000).map((p, i) => ({ ...p, seatedAt: OPENS + i / 5 }));
    expect(checkAdmittedPerSecond(queued, 2000, OPENS).checkedSeconds).toBe(4);
  });

  it("checks the seconds after a start in which the first joins were admitted on arrival", () => {
    // The first 20 joins trickle in over 20 ms and are admitted at once; then 5,000 joins/s meet a 2,000/s line.
    const trickle = Array.from({ length: 20 }, (_, i) => ({ seatedAt: OPENS + i, admitAt: OPENS + i, admitted: true, reserved: true }));
    const queued = line(2000, 10_000, 10_000, 20).map((p, i) => ({ ...p, seatedAt: OPENS + 20 + i / 5 }));
    const check = checkAdmittedPerSecond([...trickle, ...queued], 2000, OPENS);
    expect(check.rows.filter((r) => r.checked).map((r) => r.second)).toEqual([1, 2, 3, 4]);
    expect(check.ok).toBe(true);
  });
});

describe("longestWaitingStretch", () => {
  it("finds the longest stretch in which a seated shopper was still to be admitted", () => {
    const passes = [
      { seatedAt: 0, admitAt: 10 },
      { seatedAt: 5, admitAt: 20 },
      { seatedAt: 30, admitAt: 40 },
    ];
    expect(longestWaitingStretch(passes)).toEqual({ from: 0, to: 20 });
    expect(
      longestWaitingStretch([
        { seatedAt: 0, admitAt: 10 },
        { seatedAt: 9, admitAt: 50 },
      ]),
    ).toEqual({ from: 0, to: 50 });
  });

  it("skips a short start where joins trickled in and were admitted on arrival", () => {
    const trickle = Array.from({ length: 5 }, (_, i) => ({ seatedAt: i * 4, admitAt: i * 4 }));
    const crowd = Array.from({ length: 100 }, (_, i) => ({ seatedAt: 30 + i / 10, admitAt: 30 + i * 5 }));
    expect(longestWaitingStretch([...trickle, ...crowd])).toEqual({ from: 30.1, to: 525 });
    expect(longestWaitingStretch(trickle)).toBeNull();
  });

  it("counts a moment read back along the line (before the seat) as admitted on arrival", () => {
    expect(longestWaitingStretch([{ seatedAt: 100, admitAt: 50 }])).toBeNull();
  });
});

describe("checkPlacesIncrease", () => {
  it("passes places that rise with their admission moments, ties in the moment included", () => {
    const check = checkPlacesIncrease([
      { position: 3, admitAt: 20 },
      { position: 1, admitAt: 10 },
      { position: 2, admitAt: 10 },
    ]);
    expect(check).toMatchObject({ ok: true, outOfOrder: 0, repeated: 0 });
  });

  it("finds a later place admitted earlier, and a place given twice", () => {
    const swapped = checkPlacesIncrease([
      { position: 1, admitAt: 10 },
      { position: 3, admitAt: 20 },
      { position: 2, admitAt: 30 },
    ]);
    expect(swapped.ok).toBe(false);
    expect(swapped.outOfOrder).toBe(1);
    expect(swapped.examples[0]).toEqual([
      { position: 3, admitAt: 20 },
      { position: 2, admitAt: 30 },
    ]);
    const twice = checkPlacesIncrease([
      { position: 1, admitAt: 10 },
      { position: 1, admitAt: 10 },
    ]);
    expect(twice).toMatchObject({ ok: false, repeated: 1 });
  });
});

describe("ticketsForRound and waitingOverTime", () => {
  it("holds half as many tickets again as the round is expected to buy", () => {
    expect(ticketsForRound(10_000, 12)).toBe(180_000);
  });

  it("counts shoppers seated and not yet admitted", () => {
    const tickets = [
      { seatedAt: OPENS + 10, admitAt: OPENS + 100 },
      { seatedAt: OPENS + 20, admitAt: OPENS + 600 },
      { seatedAt: OPENS + 300, admitAt: OPENS + 900 },
    ];
    expect(waitingOverTime(tickets, OPENS, 1000, 250)).toEqual([
      { atMs: 0, waiting: 0 },
      { atMs: 250, waiting: 1 },
      { atMs: 500, waiting: 2 },
      { atMs: 750, waiting: 1 },
      { atMs: 1000, waiting: 0 },
    ]);
  });
});
