import { describe, expect, it } from "vitest";
import { areaOf, summarizeProfile } from "./profile";

describe("CPU profile summary", () => {
  it("names where code lives", () => {
    expect(areaOf("file:///work/main/node_modules/@trpc/server/dist/x.mjs", "f")).toBe("@trpc/server");
    expect(areaOf("file:///work/main/node_modules/ioredis/built/Redis.js", "f")).toBe("ioredis");
    expect(areaOf("node:internal/crypto/util", "f")).toBe("node:internal");
    expect(areaOf("file:///work/main/server/trpc/http.ts", "f")).toBe("server/trpc/http.ts");
    expect(areaOf("", "(garbage collector)")).toBe("(garbage collector)");
  });

  it("ranks self time, leaving idle time out", () => {
    const frame = (id: number, functionName: string, url = "") => ({ id, callFrame: { functionName, url, lineNumber: 9 } });
    const summary = summarizeProfile(
      {
        nodes: [frame(1, "(idle)"), frame(2, "verify", "file:///a/node_modules/jose/x.js"), frame(3, "(garbage collector)")],
        samples: [1, 2, 2, 3, 1],
        timeDeltas: [5000, 3000, 3000, 2000, 5000],
      },
      "p.cpuprofile",
    );
    expect(summary.busyMs).toBe(8);
    expect(summary.wallMs).toBe(18);
    expect(summary.byArea).toEqual([
      { name: "jose", ms: 6, percent: 75 },
      { name: "(garbage collector)", ms: 2, percent: 25 },
    ]);
    expect(summary.byFunction[0]!.name).toBe("verify — jose:10");
  });
});
