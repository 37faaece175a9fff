import { describe, expect, it } from "vitest";
import { checkTargets, crowdRefusedProblem } from "./target";

describe("a warm-up refused by the per-IP request rate", () => {
  it("stops the run when more than a tenth of its answers were refusals, saying what to change", () => {
    const problem = crowdRefusedProblem({ "error TOO_MANY_REQUESTS": 1799, QUEUED: 200, SOLD_OUT: 1 });
    expect(problem).toContain("1,799 of 2,000 warm-up attempts were refused");
    expect(problem).toContain("TRUSTED_PROXY_HOPS");
    expect(problem).toContain("REQUEST_RATE_PER_IP=0");
  });

  it("counts the share among the attempts that were answered", () => {
    expect(crowdRefusedProblem({ "no answer": 1000, "error TOO_MANY_REQUESTS": 150, QUEUED: 850 })).toContain(
      "150 of 1,000 warm-up attempts",
    );
  });

  it("lets a few refusals, or none, or an empty warm-up, through", () => {
    expect(crowdRefusedProblem({ "error TOO_MANY_REQUESTS": 100, QUEUED: 200, SOLD_OUT: 1700 })).toBeNull();
    expect(crowdRefusedProblem({ QUEUED: 200, SOLD_OUT: 1800 })).toBeNull();
    expect(crowdRefusedProblem({})).toBeNull();
  });
});

describe("the targets' health check", () => {
  it("names a target that does not answer, before anything is seeded into its database", async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    await expect(checkTargets(["http://127.0.0.1:1"])).rejects.toThrow(
      "--target http://127.0.0.1:1: http://127.0.0.1:1/api/health answered nothing; is the system running there?",
    );
  });
});
