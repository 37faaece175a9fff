import { describe, expect, it } from "vitest";
import { describeRedis, queueRedis, scriptCommand } from "./redis";
import { redactedUrl } from "./redacted-url";

describe("where Redis is", () => {
  const single = { REDIS_URL: "rediss://app:s3cret@redis.example.com:6380/0", REDIS_CLUSTER_NODES: [], REDIS_TLS_CA_FILE: "/etc/ca.pem" };
  it("masks a URL's password, and only that", () => {
    expect(redactedUrl("rediss://app:s3cret@redis.example.com:6380/0")).toBe("rediss://app:***@redis.example.com:6380/0");
    expect(redactedUrl("redis://:p%40ss@10.0.0.1:6379/2")).toBe("redis://:***@10.0.0.1:6379/2");
    expect(redactedUrl("redis://127.0.0.1:6379/0")).toBe("redis://127.0.0.1:6379/0");
  });
  it("describes a Cluster by its seeds, never its password", () => {
    const cluster = {
      ...single,
      REDIS_CLUSTER_NODES: [
        { host: "10.0.0.1", port: 7000 },
        { host: "::1", port: 7001 },
      ],
      REDIS_CLUSTER_PASSWORD: "s3cret",
      REDIS_CLUSTER_TLS: "1" as const,
    };
    expect(describeRedis(cluster)).toBe("cluster 10.0.0.1:7000,[::1]:7001 (TLS)");
    expect(describeRedis(single)).not.toContain("s3cret");
  });
  it("puts the queues on REDIS_QUEUE_URL when it is set, with the same CA", () => {
    expect(queueRedis(single)).toBe(single);
    expect(queueRedis({ ...single, REDIS_CLUSTER_NODES: [{ host: "10.0.0.1", port: 7000 }], REDIS_QUEUE_URL: "redis://q:6379/0" })).toEqual(
      {
        REDIS_URL: "redis://q:6379/0",
        REDIS_CLUSTER_NODES: [],
        REDIS_TLS_CA_FILE: "/etc/ca.pem",
      },
    );
  });
});

describe("scriptCommand", () => {
  it("names a script's command for its action in camelCase, its key count from the suffix", () => {
    expect(scriptCommand("server/seckill/issue-token-5.lua")).toEqual({ name: "issueToken", numberOfKeys: 5 });
    expect(scriptCommand("/abs/path/settle-reservations-3.lua")).toEqual({ name: "settleReservations", numberOfKeys: 3 });
    expect(scriptCommand("count-in-window-1.lua")).toEqual({ name: "countInWindow", numberOfKeys: 1 });
  });

  it("refuses a file not named <action>-<numKeys>.lua", () => {
    expect(() => scriptCommand("server/seckill/includes/check-purchase.lua")).toThrow(/not named <action>-<numKeys>\.lua/);
    expect(() => scriptCommand("server/seckill/Reserve-7.lua")).toThrow(/not named/);
  });
});
