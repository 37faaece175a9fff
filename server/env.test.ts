import { describe, expect, it } from "vitest";
import { DEV_SANDBOX_PAY_APP_ID, DEV_SANDBOX_PAY_KEY, DEV_SESSION_SECRET, EnvError, parsePaymentProviders, readEnv } from "./env";

describe("readEnv", () => {
  it("fills defaults", () => {
    const env = readEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.ORDER_PAY_TIMEOUT_SECONDS).toBe(1800);
    expect(env.DATABASE_URL).toMatch(/^mysql:\/\//);
    expect(env.PAYMENT_NOTIFY_MAX_AGE_SECONDS).toBe(300);
  });
  it("derives the public base URL from the port unless it is given", () => {
    expect(readEnv({ PORT: "4100" }).PUBLIC_BASE_URL).toBe("http://127.0.0.1:4100");
    expect(readEnv({ PUBLIC_BASE_URL: "https://shop.example.com/" }).PUBLIC_BASE_URL).toBe("https://shop.example.com");
    expect(() => readEnv({ PUBLIC_BASE_URL: "not a url" })).toThrow(/PUBLIC_BASE_URL/);
  });
  it("explains what is wrong", () => {
    const bad = () => readEnv({ PORT: "abc", REDIS_URL: "localhost:6379" });
    expect(bad).toThrow(/REDIS_URL: REDIS_URL must look like redis:\/\/host:6379\/0/);
    expect(bad).toThrow(/PORT: /);
  });
  it("reads Redis Cluster seed nodes, and refuses a malformed list", () => {
    expect(readEnv({}).REDIS_CLUSTER_NODES).toEqual([]);
    expect(readEnv({ REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-b:7001,[::1]:7002" }).REDIS_CLUSTER_NODES).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis-b", port: 7001 },
      { host: "::1", port: 7002 },
    ]);
    for (const bad of ["redis://10.0.0.1:7000", "10.0.0.1", "10.0.0.1:7000,", "10.0.0.1:70000"]) {
      expect(() => readEnv({ REDIS_CLUSTER_NODES: bad })).toThrow(/REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES must be host:port,host:port/);
    }
  });
  it("keeps a batch within what one create-order job may carry", () => {
    expect(readEnv({ ORDER_BATCH_SIZE: "1000" }).ORDER_BATCH_SIZE).toBe(1000);
    expect(() => readEnv({ ORDER_BATCH_SIZE: "1001" })).toThrow(/ORDER_BATCH_SIZE/);
  });
  it("demands a real session secret in production", () => {
    expect(() => readEnv({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET/);
    expect(() => readEnv({ NODE_ENV: "production", SESSION_SECRET: DEV_SESSION_SECRET })).toThrow(/SESSION_SECRET: is the public development default/);
    expect(readEnv({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40) }).NODE_ENV).toBe("production");
  });
  it("says what is wrong in one line, as an EnvError", () => {
    const bad = () => readEnv({ PORT: "abc", REDIS_URL: "localhost:6379" });
    expect(bad).toThrow(EnvError);
    expect(bad).toThrow(/^Invalid environment: [^\n]+$/);
  });
});

describe("payment providers", () => {
  const production = { NODE_ENV: "production", SESSION_SECRET: "s".repeat(40) };
  const realSandbox = { SANDBOX_PAY_KEY: "k".repeat(40), SANDBOX_PAY_APP_ID: "shop-sandbox" };

  it("offers the sandbox outside production, nothing in production, unless PAYMENT_PROVIDERS says", () => {
    expect(readEnv({}).PAYMENT_PROVIDERS).toEqual(["sandbox"]);
    expect(readEnv({ NODE_ENV: "test" }).PAYMENT_PROVIDERS).toEqual(["sandbox"]);
    expect(readEnv({ PAYMENT_PROVIDERS: "" }).PAYMENT_PROVIDERS).toEqual([]);
    expect(readEnv(production).PAYMENT_PROVIDERS).toEqual([]);
    expect(readEnv({ ...production, ...realSandbox, PAYMENT_PROVIDERS: "sandbox" }).PAYMENT_PROVIDERS).toEqual(["sandbox"]);
  });

  it("refuses the sandbox in production on its public key or app id, and only then", () => {
    const withSandbox = { ...production, PAYMENT_PROVIDERS: "sandbox" };
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_APP_ID: realSandbox.SANDBOX_PAY_APP_ID })).toThrow(/SANDBOX_PAY_KEY: is the public development default/);
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_KEY: realSandbox.SANDBOX_PAY_KEY })).toThrow(/SANDBOX_PAY_APP_ID: is the public development default/);
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_KEY: DEV_SANDBOX_PAY_KEY, SANDBOX_PAY_APP_ID: DEV_SANDBOX_PAY_APP_ID })).toThrow(/SANDBOX_PAY_KEY.*SANDBOX_PAY_APP_ID/);
    // The sandbox off: its defaults are never used, so they are no reason to refuse.
    expect(readEnv(production).SANDBOX_PAY_KEY).toBe(DEV_SANDBOX_PAY_KEY);
    // Outside production the defaults are the demo's.
    expect(readEnv({ PAYMENT_PROVIDERS: "sandbox" }).SANDBOX_PAY_APP_ID).toBe(DEV_SANDBOX_PAY_APP_ID);
  });

  it.each([
    ["sandbox", ["sandbox"]],
    [" Sandbox , ", ["sandbox"]],
    ["", []],
    [",", []],
  ])("reads %j as %j", (list, providers) => {
    expect(parsePaymentProviders(list)).toEqual({ providers });
  });

  it.each([
    ["paypal", /unknown provider "paypal" \(choose from alipay, wechatpay, sandbox\)/],
    ["alipay", /alipay has no adapter yet; only sandbox can be offered/],
    ["sandbox,wechatpay", /wechatpay has no adapter yet/],
    ["sandbox,sandbox", /sandbox is listed twice/],
  ])("refuses %j", (list, problem) => {
    const parsed = parsePaymentProviders(list);
    expect("problem" in parsed && parsed.problem).toMatch(problem);
    expect(() => readEnv({ PAYMENT_PROVIDERS: list })).toThrow(/PAYMENT_PROVIDERS: /);
  });
});

describe("PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS", () => {
  it("waits 15 minutes past the deadline for an unreachable provider by default, and takes whole seconds", () => {
    expect(readEnv({}).PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS).toBe(900);
    expect(readEnv({ PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: "0" }).PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS).toBe(0);
    expect(() => readEnv({ PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: "-1" })).toThrow(/PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS/);
    expect(() => readEnv({ PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: "1.5" })).toThrow(/PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS/);
  });
});
