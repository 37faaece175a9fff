import { describe, expect, it } from "vitest";
import { seckillPortInLog } from "./npm-start";

describe("seckillPortInLog", () => {
  it("reads the first seckill service's port from start.ts's ready line", () => {
    const log = "[start] starting 1 web instance(s) and 2 seckill service(s)\n[start] balancer ready: web on internal ports 36661; /api/seckill/ to seckill services on internal ports 46589, 46601\n";
    expect(seckillPortInLog(log)).toBe(46589);
  });

  it("is null when the purchase path goes to the web instances, or before the line", () => {
    expect(seckillPortInLog("[start] balancer ready: web on internal ports 36661; /api/seckill/ to the web instances\n")).toBeNull();
    expect(seckillPortInLog("")).toBeNull();
  });
});
