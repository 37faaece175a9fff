import { describe, expect, it } from "vitest";
import { clientIp } from "./client-ip";

describe("clientIp", () => {
  it("takes the connecting peer when nothing is trusted", () => {
    expect(clientIp("6.6.6.6, 10.0.0.7", 0)).toBe("10.0.0.7");
  });
  it("steps over trusted proxies, never trusting what the client wrote", () => {
    expect(clientIp("6.6.6.6, 203.0.113.9, 10.0.0.2", 1)).toBe("203.0.113.9");
  });
  it("falls back sensibly", () => {
    expect(clientIp("203.0.113.9", 3)).toBe("203.0.113.9");
    expect(clientIp(null, 0)).toBe("unknown");
  });
});
