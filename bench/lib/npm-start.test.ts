import { describe, expect, it } from "vitest";
import { webPortsFromOutput } from "./npm-start";

describe("webPortsFromOutput", () => {
  it("reads the web instances' ports from start.ts's front-door-ready line", () => {
    const output = [
      "[start] starting 2 web instance(s) and 1 seckill service(s); http://localhost:3000 shows a starting page until they are ready",
      "[start] front door ready on port 39001: /api/seckill/ answered by the seckill services (internal ports 39002), the rest proxied to web (internal ports 41235, 41237)",
      '{"level":30,"msg":"worker ready"}',
    ].join("\n");
    expect(webPortsFromOutput(output)).toEqual([41235, 41237]);
  });

  it("is empty before that line", () => {
    expect(webPortsFromOutput("[start] starting 1 web instance(s) and 1 seckill service(s)\n")).toEqual([]);
  });
});
