import { describe, expect, it } from "vitest";
import { adminNotice, childEnvironment, DEMO_GENERATED, generatePassword, resolveLaunch } from "./prepare";
import { readEnv } from "../platform/env";

describe("resolveLaunch", () => {
  it("runs production unless NODE_ENV says otherwise, and is the developer's demo only when unset or development", () => {
    expect(resolveLaunch(undefined)).toEqual({ nodeEnv: "production", demo: true });
    expect(resolveLaunch("")).toEqual({ nodeEnv: "production", demo: true });
    expect(resolveLaunch("development")).toEqual({ nodeEnv: "development", demo: true });
    expect(resolveLaunch("production")).toEqual({ nodeEnv: "production", demo: false });
    expect(resolveLaunch("test")).toEqual({ nodeEnv: "test", demo: false });
  });
});

describe("the demo's generated values", () => {
  it("are accepted by the environment module in production, and differ every time", () => {
    const values = Object.fromEntries(Object.entries(DEMO_GENERATED).map(([name, generate]) => [name, generate()]));
    const env = readEnv({ NODE_ENV: "production", ...values });
    expect(env.SESSION_SECRET).toBe(values.SESSION_SECRET);
    expect(env.SANDBOX_PAY_KEY).toBe(values.SANDBOX_PAY_KEY);
    expect(env.SANDBOX_PAY_APP_ID).toBe(values.SANDBOX_PAY_APP_ID);
    expect(env.PAYMENT_PROVIDERS).toEqual(["sandbox"]);
    for (const generate of Object.values(DEMO_GENERATED).slice(0, 3)) expect(generate()).not.toBe(generate());
  });
});

describe("generatePassword", () => {
  it("gives 16 characters without look-alikes", () => {
    const passwords = Array.from({ length: 50 }, () => generatePassword());
    for (const password of passwords) expect(password).toMatch(/^[a-km-zA-HJ-NP-Z2-9]{16}$/);
    expect(new Set(passwords).size).toBe(50);
  });
});

describe("adminNotice", () => {
  it("boxes the email, the password and how to reset it, every line the same width", () => {
    const lines = adminNotice("admin@flash-sale.test", "abcdEFGH2345jkmn", "http://127.0.0.1:3000/admin").split("\n");
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
    expect(lines.join("\n")).toContain("password  abcdEFGH2345jkmn");
    expect(lines.join("\n")).toContain("npm run admin:create -- --email admin@flash-sale.test");
  });
});

describe("childEnvironment", () => {
  it("hands every spawned process the front door's public address, whatever port the process listens on", () => {
    const config = readEnv({ PORT: "4123" });
    expect(config.PUBLIC_BASE_URL).toBe("http://127.0.0.1:4123");
    // An instance on an internal port (Next's own start-up writes its port into process.env.PORT)
    // still builds notify URLs and redirects on the front door's address.
    const instance = readEnv({ ...childEnvironment(config), PORT: "39017" });
    expect(instance.PUBLIC_BASE_URL).toBe("http://127.0.0.1:4123");
    expect(readEnv({ ...childEnvironment(readEnv({ PUBLIC_BASE_URL: "https://shop.example/" })) }).PUBLIC_BASE_URL).toBe(
      "https://shop.example",
    );
  });
});
