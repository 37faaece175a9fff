import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALIPAY_VARIABLES as alipay, pkcs8, WECHATPAY_VARIABLES as wechatpay } from "../testing/rsa-keys";
import {
  DEV_SANDBOX_PAY_APP_ID,
  DEV_SANDBOX_PAY_KEY,
  DEV_SESSION_SECRET,
  ENV_SECTIONS,
  EnvError,
  parsePaymentProviders,
  readEnv,
} from "./env";

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
  it("reads the managed-Redis settings, and refuses a CA file it cannot use", () => {
    const none = readEnv({});
    expect([
      none.REDIS_QUEUE_URL,
      none.REDIS_TLS_CA_FILE,
      none.REDIS_CLUSTER_USERNAME,
      none.REDIS_CLUSTER_PASSWORD,
      none.REDIS_CLUSTER_TLS,
    ]).toEqual([undefined, undefined, undefined, undefined, "0"]);
    expect(readEnv({ REDIS_QUEUE_URL: "" }).REDIS_QUEUE_URL).toBeUndefined();
    expect(readEnv({ REDIS_QUEUE_URL: "rediss://jobs:s3cret@queues.example.com:6380/0" }).REDIS_QUEUE_URL).toBe(
      "rediss://jobs:s3cret@queues.example.com:6380/0",
    );
    expect(() => readEnv({ REDIS_QUEUE_URL: "queues.example.com:6379" })).toThrow(
      /REDIS_QUEUE_URL: REDIS_QUEUE_URL must look like redis:\/\//,
    );
    expect(() => readEnv({ REDIS_CLUSTER_TLS: "yes" })).toThrow(/REDIS_CLUSTER_TLS/);
    const dir = mkdtempSync(path.join(tmpdir(), "env-ca-"));
    try {
      const notPem = path.join(dir, "ca.txt");
      writeFileSync(notPem, "not a certificate");
      expect(() => readEnv({ REDIS_TLS_CA_FILE: path.join(dir, "missing.pem") })).toThrow(
        /REDIS_TLS_CA_FILE: no such file: .*missing\.pem/,
      );
      expect(() => readEnv({ REDIS_TLS_CA_FILE: notPem })).toThrow(/REDIS_TLS_CA_FILE: .*holds no PEM certificate/);
      const pem = path.join(dir, "ca.pem");
      writeFileSync(pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
      expect(readEnv({ REDIS_TLS_CA_FILE: pem }).REDIS_TLS_CA_FILE).toBe(pem);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("keeps a batch within what one create-order job may carry", () => {
    expect(readEnv({ ORDER_BATCH_SIZE: "1000" }).ORDER_BATCH_SIZE).toBe(1000);
    expect(() => readEnv({ ORDER_BATCH_SIZE: "1001" })).toThrow(/ORDER_BATCH_SIZE/);
  });
  it("demands a real session secret in production", () => {
    expect(() => readEnv({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET/);
    expect(() => readEnv({ NODE_ENV: "production", SESSION_SECRET: DEV_SESSION_SECRET })).toThrow(
      /SESSION_SECRET: is the public development default/,
    );
    expect(readEnv({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40) }).NODE_ENV).toBe("production");
  });
  it("says what is wrong in one line, as an EnvError", () => {
    const bad = () => readEnv({ PORT: "abc", REDIS_URL: "localhost:6379" });
    expect(bad).toThrow(EnvError);
    expect(bad).toThrow(/^Invalid environment: [^\n]+$/);
  });
});

describe("mail", () => {
  it("takes an smtp:// or smtps:// SMTP_URL, reads empty as unset, refuses anything else by name", () => {
    expect(readEnv({ SMTP_URL: "smtp://user:p%40ss@mail.example.com:587" }).SMTP_URL).toBe("smtp://user:p%40ss@mail.example.com:587");
    expect(readEnv({ SMTP_URL: "smtps://mail.example.com" }).SMTP_URL).toBe("smtps://mail.example.com");
    expect(readEnv({ SMTP_URL: "" }).SMTP_URL).toBeUndefined();
    expect(() => readEnv({ SMTP_URL: "http://mail.example.com" })).toThrow(/SMTP_URL: SMTP_URL must look like smtp:\/\//);
  });
  it("starts production without SMTP_URL (links go to the log, said at start) and keeps links a day by default", () => {
    const production = readEnv({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40) });
    expect(production.SMTP_URL).toBeUndefined();
    expect(production.CONTACT_VERIFICATION_TTL_SECONDS).toBe(86_400);
    expect(() => readEnv({ CONTACT_VERIFICATION_TTL_SECONDS: "10" })).toThrow(/CONTACT_VERIFICATION_TTL_SECONDS/);
  });
});

describe("sign-ups", () => {
  it("ships a real shop's sign-up limits, 0 turning one off", () => {
    const env = readEnv({});
    expect([
      env.SIGN_UP_MAX_PER_ADDRESS,
      env.SIGN_UP_ADDRESS_WINDOW_SECONDS,
      env.SIGN_UP_MAX_PER_DEVICE,
      env.SIGN_UP_DEVICE_WINDOW_SECONDS,
    ]).toEqual([5, 3600, 3, 86_400]);
    expect(readEnv({ SIGN_UP_MAX_PER_ADDRESS: "0", SIGN_UP_MAX_PER_DEVICE: "0" })).toMatchObject({
      SIGN_UP_MAX_PER_ADDRESS: 0,
      SIGN_UP_MAX_PER_DEVICE: 0,
    });
    expect(() => readEnv({ SIGN_UP_ADDRESS_WINDOW_SECONDS: "0" })).toThrow(/SIGN_UP_ADDRESS_WINDOW_SECONDS/);
    expect(() => readEnv({ SIGN_UP_MAX_PER_DEVICE: "-1" })).toThrow(/SIGN_UP_MAX_PER_DEVICE/);
  });
  it("reads the domains that ignore dots, Gmail's by default", () => {
    expect(readEnv({}).EMAIL_DOTLESS_DOMAINS).toEqual(["gmail.com"]);
    expect(readEnv({ EMAIL_DOTLESS_DOMAINS: "Example.com, gmail.com" }).EMAIL_DOTLESS_DOMAINS).toEqual(["example.com", "gmail.com"]);
    expect(readEnv({ EMAIL_DOTLESS_DOMAINS: "" }).EMAIL_DOTLESS_DOMAINS).toEqual([]);
  });
});

describe("sections", () => {
  const all = Object.values(ENV_SECTIONS).flat();
  it("puts every variable in exactly one section", () => {
    expect(new Set(all).size).toBe(all.length);
    expect(Object.keys(readEnv({})).filter((name) => !all.includes(name))).toEqual([]);
  });
  it("gives every tuning knob a default", () => {
    const defaults = readEnv({});
    expect(ENV_SECTIONS.tuning.filter((name) => defaults[name as keyof typeof defaults] === undefined)).toEqual([]);
  });
  it("reads no fault switch: the tests inject faults themselves (server/testing/faults/)", () => {
    expect(all.filter((name) => name.startsWith("FAULT_"))).toEqual([]);
  });
  it("starts a production process only once the required section is set", () => {
    expect(() => readEnv({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET/);
    expect(() => readEnv({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40), PAYMENT_PROVIDERS: "alipay" })).toThrow(
      /ALIPAY_APP_ID: is required/,
    );
    expect(readEnv({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40) }).PAYMENT_PROVIDERS).toEqual([]);
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
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_APP_ID: realSandbox.SANDBOX_PAY_APP_ID })).toThrow(
      /SANDBOX_PAY_KEY: is the public development default/,
    );
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_KEY: realSandbox.SANDBOX_PAY_KEY })).toThrow(
      /SANDBOX_PAY_APP_ID: is the public development default/,
    );
    expect(() => readEnv({ ...withSandbox, SANDBOX_PAY_KEY: DEV_SANDBOX_PAY_KEY, SANDBOX_PAY_APP_ID: DEV_SANDBOX_PAY_APP_ID })).toThrow(
      /SANDBOX_PAY_KEY.*SANDBOX_PAY_APP_ID/,
    );
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
    ["wechatpay, alipay,sandbox", ["wechatpay", "alipay", "sandbox"]],
  ])("reads %j as %j", (list, providers) => {
    expect(parsePaymentProviders(list)).toEqual({ providers });
  });

  it.each([
    ["paypal", /unknown provider "paypal" \(choose from alipay, wechatpay, sandbox\)/],
    ["sandbox,sandbox", /sandbox is listed twice/],
    ["alipay,wechatpay,Alipay", /alipay is listed twice/],
  ])("refuses %j", (list, problem) => {
    const parsed = parsePaymentProviders(list);
    expect("problem" in parsed && parsed.problem).toMatch(problem);
    expect(() => readEnv({ PAYMENT_PROVIDERS: list })).toThrow(/PAYMENT_PROVIDERS: /);
  });
});

describe("provider variables", () => {
  it.each([...Object.keys(alipay).map((v) => ["alipay", v]), ...Object.keys(wechatpay).map((v) => ["wechatpay", v])])(
    "%s listed without %s: one line naming it",
    (name, variable) => {
      const given = { PAYMENT_PROVIDERS: `sandbox,${name}`, ...alipay, ...wechatpay, [variable]: "" };
      const read = () => readEnv(given);
      expect(read).toThrow(EnvError);
      expect(read).toThrow(new RegExp(`^Invalid environment: ${variable}: is required when PAYMENT_PROVIDERS lists ${name}$`));
    },
  );

  it("names an unreadable key, a wrong-sized APIv3 key, a malformed id", () => {
    const both = { PAYMENT_PROVIDERS: "alipay,wechatpay", ...alipay, ...wechatpay };
    expect(() => readEnv({ ...both, ALIPAY_PRIVATE_KEY: "MIIEvQ-not-base64" })).toThrow(
      /^Invalid environment: ALIPAY_PRIVATE_KEY: is not a readable RSA private key \(PEM, or the bare base64 body/,
    );
    expect(() => readEnv({ ...both, ALIPAY_PUBLIC_KEY: pkcs8 })).toThrow(
      /^Invalid environment: ALIPAY_PUBLIC_KEY: is not a readable RSA public key/,
    );
    expect(() => readEnv({ ...both, WECHATPAY_PLATFORM_PUBLIC_KEY: "abc" })).toThrow(
      /WECHATPAY_PLATFORM_PUBLIC_KEY: is not a readable RSA public key/,
    );
    expect(() => readEnv({ ...both, WECHATPAY_APIV3_KEY: "x".repeat(31) })).toThrow(/WECHATPAY_APIV3_KEY: must be exactly 32 bytes/);
    expect(() => readEnv({ ...both, WECHATPAY_APIV3_KEY: "é".repeat(16) })).not.toThrow(); // 32 bytes of UTF-8
    expect(() => readEnv({ ...both, WECHATPAY_MCH_ID: "19 00" })).toThrow(/WECHATPAY_MCH_ID: must be the identifier the provider issued/);
    expect(() => readEnv({ ...both, ALIPAY_GATEWAY: "not a url" })).toThrow(/ALIPAY_GATEWAY/);
  });

  it("asks nothing of a provider not listed (a half-filled .env stays harmless)", () => {
    const env = readEnv({ PAYMENT_PROVIDERS: "sandbox", ALIPAY_APP_ID: "2021000000000001", WECHATPAY_PRIVATE_KEY: "garbage" });
    expect(env.PAYMENT_PROVIDERS).toEqual(["sandbox"]);
  });

  it("in production too: real providers need their variables, and the sandbox rules stay", () => {
    const production = { NODE_ENV: "production", SESSION_SECRET: "s".repeat(40) };
    expect(() => readEnv({ ...production, PAYMENT_PROVIDERS: "alipay" })).toThrow(/ALIPAY_APP_ID: is required/);
    expect(readEnv({ ...production, PAYMENT_PROVIDERS: "alipay,wechatpay", ...alipay, ...wechatpay }).PAYMENT_PROVIDERS).toEqual([
      "alipay",
      "wechatpay",
    ]);
    expect(() => readEnv({ ...production, PAYMENT_PROVIDERS: "alipay,sandbox", ...alipay })).toThrow(
      /SANDBOX_PAY_KEY: is the public development default/,
    );
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
