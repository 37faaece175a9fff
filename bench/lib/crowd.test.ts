import { describe, expect, it, vi } from "vitest";
import { answeredAttempts, answerOf, buildPlan, CrowdTally, NO_ANSWER, shopperIp, worstP99 } from "./crowd";
import { sweepCrowds } from "./sweep";
import { parseOptions } from "./options";

describe("the crowd's plan", () => {
  it("has every shopper once, in order, plus the asked share of repeats by earlier shoppers", () => {
    const plan = buildPlan(1000, 0.1, 500);
    expect(plan.shopperOf.length).toBe(1100);
    const firsts = [...plan.shopperOf].filter((_, slot) => !plan.repeat[slot]);
    expect(firsts).toEqual(Array.from({ length: 1000 }, (_, i) => 500 + i));
    plan.shopperOf.forEach((shopper, slot) => {
      if (!plan.repeat[slot]) return;
      // A repeat is by a shopper who already had a first attempt before it.
      expect(plan.shopperOf.slice(0, slot).filter((s, k) => s === shopper && !plan.repeat[k]).length).toBe(1);
    });
  });

  it("replays the same order for the same parameters", () => {
    expect(buildPlan(300, 0.2).shopperOf).toEqual(buildPlan(300, 0.2).shopperOf);
  });

  it("gives each shopper an address of its own", () => {
    expect(new Set(Array.from({ length: 70_000 }, (_, i) => shopperIp(i))).size).toBe(70_000);
  });
});

describe("answerOf", () => {
  it("reads a tRPC result, a tRPC error, the gateway's refusal and garbage", () => {
    expect(answerOf(200, '{"result":{"data":{"json":{"status":"QUEUED","reservationId":"r1"}}}}')).toEqual({
      outcome: "QUEUED",
      reservationId: "r1",
      token: undefined,
    });
    expect(answerOf(429, '{"error":{"json":{"message":"slow down","data":{"code":"TOO_MANY_REQUESTS"}}}}').outcome).toBe(
      "error TOO_MANY_REQUESTS",
    );
    expect(answerOf(503, '{"error":{"message":"busy","code":"SERVICE_UNAVAILABLE"}}').outcome).toBe("error SERVICE_UNAVAILABLE");
    expect(answerOf(502, "upstream unavailable").outcome).toBe("error HTTP 502");
  });

  it("knows the sold-out answer at sight, and still parses anything else", () => {
    expect(answerOf(200, '{"result":{"data":{"json":{"status":"SOLD_OUT"}}}}').outcome).toBe("SOLD_OUT");
    expect(answerOf(200, '{"result": {"data": {"json": {"status": "SOLD_OUT"}}}}').outcome).toBe("SOLD_OUT");
    expect(answerOf(200, '{"result":{"data":{"json":{"status":"SOLD_OUT"}}}}x').outcome).toBe("error HTTP 200");
    expect(answerOf(200, '{"result":{"data":{"json":{}}}}').outcome).toBe("error HTTP 200");
  });
});

describe("a crowd's tallies", () => {
  it("counts answered attempts without the unanswered, and takes the worse step's p99", () => {
    expect(answeredAttempts({ outcomes: { QUEUED: 3, SOLD_OUT: 5, [NO_ANSWER]: 2 } })).toBe(8);
    const latency = (token: number | null, purchase: number | null) =>
      ({ token: { p99: token }, purchase: { p99: purchase }, byOutcome: {} }) as never;
    expect(worstP99({ latency: latency(12, 40) })).toBe(40);
    expect(worstP99({ latency: latency(null, null) })).toBeNull();
  });

  it("times a run from its first attempt to its last final answer, not to when it is read", async () => {
    const tally = new CrowdTally(buildPlan(2, 0));
    const start = performance.now();
    tally.attemptStarted(0, start - 300);
    tally.attemptStarted(1, start - 200);
    tally.tokenAnswered(0, start - 300, 200, JSON.stringify({ result: { data: { json: { status: "SOLD_OUT" } } } }));
    tally.tokenAnswered(1, start - 200, 200, JSON.stringify({ result: { data: { json: { status: "SOLD_OUT" } } } }));
    const answeredAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tally.elapsedSeconds()).toBeCloseTo((answeredAt - (start - 300)) / 1000, 1);
  });
});

describe("the sweep", () => {
  it("meets each sale with crowds of its size, ten times it and a million, bounded by the shoppers seeded", () => {
    expect(sweepCrowds(1000, 1_000_000)).toEqual([1000, 10_000, 1_000_000]);
    expect(sweepCrowds(100_000, 1_000_000)).toEqual([100_000, 1_000_000]);
    expect(sweepCrowds(10_000, 50_000)).toEqual([10_000, 50_000]);
  });
});

describe("bench options", () => {
  it("reads the issue's command line", () => {
    const options = parseOptions(["--users", "1000000", "--stock", "10000", "--baselines", "--set", "ORDER_BATCH_SIZE=500"]);
    expect(options).toMatchObject({
      users: 1_000_000,
      stock: 10_000,
      baselines: true,
      sweep: false,
      concurrency: 100,
      early: 2000,
      settings: { ORDER_BATCH_SIZE: "500" },
      targets: [],
    });
  });

  it("takes running systems to load as base URLs", () => {
    expect(parseOptions(["--target", "http://127.0.0.1:3000/", "--target", "https://staging.example:8443"]).targets).toEqual([
      "http://127.0.0.1:3000",
      "https://staging.example:8443",
    ]);
  });

  /** The usage error parseOptions prints before it exits with status 2. */
  function usageError(argv: string[]): string {
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(() => parseOptions(argv)).toThrow("exit 2");
      return String(printed.mock.calls[0]?.[0]).split("\n")[0]!;
    } finally {
      exit.mockRestore();
      printed.mockRestore();
    }
  }

  it("refuses a target that is not a base URL, and what only the bench's own processes can do with one", () => {
    expect(usageError(["--target", "127.0.0.1:3000"])).toContain(
      '--target takes a URL such as http://127.0.0.1:3000, not "127.0.0.1:3000"',
    );
    expect(usageError(["--target", "localhost:3000"])).toContain(
      "--target takes the base URL of the running system (http or https, no path)",
    );
    expect(usageError(["--target", "http://127.0.0.1:3000/api/seckill"])).toContain("no path");
    expect(usageError(["--target", "http://127.0.0.1:3000", "--baselines", "--workers", "2"])).toBe(
      "--target loads a running system with the headline sale only; --workers, --baselines need the processes the bench starts itself",
    );
  });
});
