import { describe, expect, it } from "vitest";
import { brokenAnswers, doorCpuShare, doorLine, doorRow, doorSample, measureDoor, type DoorSample } from "./doors";
import type { ResourceUse } from "./procs";

const use = (rows: [string, number][]): ResourceUse => ({
  seconds: 10,
  rows: rows.map(([component, cpuSeconds]) => ({ component, cpuSeconds, cores: cpuSeconds / 10, peakRssMiB: 100 })),
  firstComponentBySecond: [],
  machineCores: 2,
  otherCores: 0,
});

const SYSTEM = ["server/cli/start.ts", "server/cli/web.ts", "server/cli/seckill.ts", "worker/main.ts"];

describe("doorSample", () => {
  it("sums the system's processes' CPU per purchase, leaving out Redis, MariaDB and the load generator", () => {
    const sample = doorSample(
      {
        answered: 70_000,
        seconds: 10,
        p99Ms: 35,
        outcomes: { QUEUED: 70_000 },
        resources: use([
          ["server/cli/start.ts", 5.25],
          ["server/cli/web.ts", 0.05],
          ["server/cli/seckill.ts", 4.9],
          ["worker/main.ts", 0.37],
          ["Redis", 3],
          ["MariaDB", 1],
          ["this process (load generator)", 6],
        ]),
      },
      SYSTEM,
    );
    expect(sample.perSecond).toBe(7000);
    expect(sample.systemCpuSeconds).toBe(10.57);
    expect(sample.systemCpuMicrosPerPurchase).toBe(151);
    expect(sample.cpuByProcess.filter((p) => p.system).map((p) => p.process)).toEqual(SYSTEM);
  });

  it("has no CPU per purchase without a CPU reading or without an answer", () => {
    expect(doorSample({ answered: 100, seconds: 1, p99Ms: null, outcomes: {} }, SYSTEM).systemCpuMicrosPerPurchase).toBeNull();
    expect(
      doorSample({ answered: 0, seconds: 1, p99Ms: null, outcomes: {}, resources: use([["worker/main.ts", 1]]) }, SYSTEM)
        .systemCpuMicrosPerPurchase,
    ).toBeNull();
  });
});

describe("brokenAnswers", () => {
  it("names no answer, error pages and errors, not refusals nor an overloaded system's 429 and 503", () => {
    expect(brokenAnswers({ QUEUED: 900, TICKET_USED: 3, "error TOO_MANY_REQUESTS": 2, "error SERVICE_UNAVAILABLE": 5 })).toBeNull();
    expect(brokenAnswers({ QUEUED: 900, "error HTTP 502": 4, "no answer": 1, "error INTERNAL_SERVER_ERROR": 2 })).toBe(
      "error HTTP 502 4, no answer 1, error INTERNAL_SERVER_ERROR 2",
    );
  });
});

describe("doorCpuShare", () => {
  it("is what the door adds as a share of the CPU per purchase through it", () => {
    expect(doorCpuShare(151, 78)).toBe(0.48);
    expect(doorCpuShare(80, 80)).toBe(0);
  });

  it("is negative when the door cost less than straight (noise), and null without both figures", () => {
    expect(doorCpuShare(75, 78)).toBe(-0.04);
    expect(doorCpuShare(null, 78)).toBeNull();
    expect(doorCpuShare(151, null)).toBeNull();
    expect(doorCpuShare(0, 78)).toBeNull();
  });
});

const sample = (perSecond: number, micros: number | null): DoorSample => ({
  perSecond,
  answered: perSecond * 10,
  seconds: 10,
  systemCpuSeconds: null,
  systemCpuMicrosPerPurchase: micros,
  cpuByProcess: [],
  p99Ms: null,
  outcomes: {},
});

describe("doorRow", () => {
  it("divides through by straight and checks it against 0.85", () => {
    const row = doorRow({ door: "through the front door", path: "two-step" }, sample(6878, 151), sample(8600, 78), []);
    expect(row.ratio).toBe(0.8);
    expect(row.met).toBe(false);
    expect(row.doorCpuShare).toBe(0.48);
    expect(doorRow({ door: "d", path: "p" }, sample(7400, 90), sample(8600, 78), []).met).toBe(true);
    expect(doorLine(row)).toBe(
      "through the front door, two-step: 6878 purchases/s vs straight at the seckill service 8600/s: 0.80 (target ≥ 0.85, not met); system CPU per purchase 151 µs vs 78 µs: the door's share 48 %",
    );
  });

  it("keeps what the door is, and names the door in its line", () => {
    const row = doorRow(
      { door: "through nginx (deploy/nginx)", path: "one-request", via: "Debian's nginx" },
      sample(8200, 92),
      sample(8600, 78),
      [],
    );
    expect(row.via).toBe("Debian's nginx");
    expect(doorLine(row)).toBe(
      "through nginx (deploy/nginx), one-request: 8200 purchases/s vs straight at the seckill service 8600/s: 0.95 (target ≥ 0.85, met); system CPU per purchase 92 µs vs 78 µs: the door's share 15 %",
    );
  });

  it("gives a ratio of 0, not Infinity, when straight answered nothing", () => {
    expect(doorRow({ door: "d", path: "p" }, sample(10, null), sample(0, null), []).ratio).toBe(0);
  });
});

describe("measureDoor", () => {
  it("alternates the door and straight over three rounds and reports the median round's runs", async () => {
    const order: string[] = [];
    const through = [7000, 8000, 6000];
    const rounds = { door: 0, straight: 0 };
    const row = await measureDoor(
      { door: "through the front door", path: "two-step" },
      async () => {
        order.push("door");
        const perSecond = through[rounds.door++]!;
        return sample(perSecond, perSecond / 50);
      },
      async () => {
        order.push("straight");
        rounds.straight++;
        return sample(10_000, 80);
      },
    );
    expect(order).toEqual(["door", "straight", "straight", "door", "door", "straight"]);
    expect(row.through.perSecond).toBe(7000);
    expect(row.ratio).toBe(0.7);
    expect(row.doorCpuShare).toBe(0.43);
    expect(row.rounds.map((r) => [r.doorFirst, r.door, r.straight, r.ratio, r.doorCpuMicrosPerPurchase])).toEqual([
      [true, 7000, 10_000, 0.7, 140],
      [false, 8000, 10_000, 0.8, 160],
      [true, 6000, 10_000, 0.6, 120],
    ]);
  });
});
