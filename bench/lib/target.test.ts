import { describe, expect, it } from "vitest";
import { crowdRefusedProblem } from "./target";

describe("a warm-up refused by the per-IP limit", () => {
  it("stops the run when more than a tenth of its answers were refusals, saying what to change", () => {
    const problem = crowdRefusedProblem({ "error TOO_MANY_REQUESTS": 1799, QUEUED: 200, SOLD_OUT: 1 });
    expect(problem).toContain("1,799 of 2,000 warm-up attempts were refused");
    expect(problem).toContain("TRUSTED_PROXY_HOPS");
    expect(problem).toContain("RATE_LIMIT_PER_IP=0");
  });

  it("lets a few refusals, or none, or an empty warm-up, through", () => {
    expect(crowdRefusedProblem({ "error TOO_MANY_REQUESTS": 100, QUEUED: 200, SOLD_OUT: 1700 })).toBeNull();
    expect(crowdRefusedProblem({ QUEUED: 200, SOLD_OUT: 1800 })).toBeNull();
    expect(crowdRefusedProblem({})).toBeNull();
  });
});
