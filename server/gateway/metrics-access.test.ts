import { describe, expect, it } from "vitest";
import { HEALTH_TOKEN_MESSAGE, healthRefusal, isPrivateAddress, metricsRefusal } from "./metrics-access";

describe("isPrivateAddress", () => {
  it("knows loopback, private, unique-local and link-local addresses, mapped ones too", () => {
    for (const address of [
      "127.0.0.1",
      "127.8.9.10",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.10.10",
      "::1",
      "[::1]",
      "fd12:3456::1",
      "fe80::1%eth0",
      "::ffff:10.0.0.5",
      "::FFFF:127.0.0.1",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });
  it("calls everything else public, unknown and garbage included", () => {
    for (const address of [
      "203.0.113.9",
      "8.8.8.8",
      "172.32.0.1",
      "172.15.255.255",
      "192.169.0.1",
      "100.64.0.1",
      "2001:db8::1",
      "::ffff:8.8.8.8",
      "unknown",
      "",
      "10.0.0.1.evil",
      "localhost",
      "::ffff:999.1.1.1",
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe("metricsRefusal", () => {
  const TOKEN = "a-metrics-token-of-length";
  it("answers a private scraper without a token", () => {
    expect(metricsRefusal({ authorization: null, clientAddress: "10.0.0.7" }, undefined)).toBeNull();
  });
  it("answers a public one only with the right bearer token", () => {
    expect(metricsRefusal({ authorization: `Bearer ${TOKEN}`, clientAddress: "203.0.113.9" }, TOKEN)).toBeNull();
    for (const authorization of [null, "", "Bearer", "Bearer ", `Bearer ${TOKEN}x`, `bearer ${TOKEN}`, `Basic ${TOKEN}`, "Bearer a"]) {
      expect(metricsRefusal({ authorization, clientAddress: "203.0.113.9" }, TOKEN), String(authorization)).toMatchObject({ status: 401 });
    }
  });
  it("refuses every public scraper when no token is configured", () => {
    expect(metricsRefusal({ authorization: "Bearer ", clientAddress: "203.0.113.9" }, undefined)).toMatchObject({ status: 401 });
    expect(metricsRefusal({ authorization: "Bearer anything", clientAddress: "unknown" }, undefined)).toMatchObject({ status: 401 });
  });
});

describe("healthRefusal", () => {
  const TOKEN = "a-metrics-token-of-length";
  it("shows the detailed view to the metrics' operators: a private address, or the token", () => {
    expect(healthRefusal({ authorization: null, clientAddress: "10.0.0.7" }, undefined)).toBeNull();
    expect(healthRefusal({ authorization: `Bearer ${TOKEN}`, clientAddress: "203.0.113.9" }, TOKEN)).toBeNull();
  });
  it("refuses anyone else with a sentence that points probes at /api/live and /api/ready", () => {
    expect(healthRefusal({ authorization: null, clientAddress: "203.0.113.9" }, TOKEN)).toEqual({
      status: 401,
      text: HEALTH_TOKEN_MESSAGE,
    });
    expect(healthRefusal({ authorization: "Bearer wrong", clientAddress: "203.0.113.9" }, TOKEN)).toMatchObject({ status: 401 });
    expect(HEALTH_TOKEN_MESSAGE.en).toContain("/api/ready");
    expect(HEALTH_TOKEN_MESSAGE.zh).toContain("/api/ready");
  });
});
