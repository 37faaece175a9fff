import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWeb, type ChildHandle, type TestEnvironment } from "../testing/harness";

/**
 * Password hashing as a crowd meets it: a real web process (`next start` behind server/cli/web.ts)
 * over HTTP, with its own database and Redis namespace. The per-IP request rate is off, so what is
 * measured is the hashing, not the gate in front of it.
 */
let t: TestEnvironment;
let web: ChildHandle & { url: string };
beforeAll(async () => {
  t = await createTestEnvironment("password_hashing");
  // A wait long enough for the whole crowd on a busy two-core machine: every sign-up is to succeed.
  web = await startWeb(t.childEnv, { REQUEST_RATE_PER_IP: "0", PASSWORD_HASH_WAIT_MS: "180000" });
}, 240_000);
afterAll(async () => {
  await web?.stop();
  await t?.cleanup();
});

async function call(base: string, procedure: string, input: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ json: input }),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

describe("60 sign-ups at once", () => {
  it("all succeed while /api/health keeps answering, p99 under 300 ms", async () => {
    // The route's first call loads its code: done before the clock starts, as a running shop has.
    expect((await call(web.url, "auth.signUp", { email: "first@example.test", password: "first-password" })).status).toBe(200);
    const healthMs: number[] = [];
    const unhealthy: string[] = [];
    let crowdDone = false;
    const poll = (async () => {
      while (!crowdDone) {
        const started = performance.now();
        const response = await fetch(`${web.url}/api/health`);
        const body = await response.text();
        healthMs.push(performance.now() - started);
        if (response.status !== 200) unhealthy.push(`${response.status} ${body}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const run = Date.now().toString(36);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(web.url, "auth.signUp", { email: `crowd-${run}-${i}@example.test`, password: `crowd-password-${i}` }),
      ),
    ).finally(() => {
      crowdDone = true;
    });
    await poll;
    const statuses = answers.map((answer) => answer.status);
    if (statuses.some((status) => status >= 500)) console.log(web.output().slice(-6000));

    const refused = statuses.filter((status) => status >= 400 && status < 500).length;
    console.log(
      `sign-ups: ${statuses.filter((s) => s === 200).length} ok, ${refused} 4xx; /api/health over ${healthMs.length} polls: p50 ${percentile(healthMs, 50).toFixed(0)} ms, p99 ${percentile(healthMs, 99).toFixed(0)} ms, max ${Math.max(...healthMs).toFixed(0)} ms`,
    );
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => `${answer.status} ${answer.body}`)).toEqual([]);
    expect(unhealthy).toEqual([]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60 - refused);
    expect(refused).toBe(0);
    expect(percentile(healthMs, 99)).toBeLessThan(300);
    const stored = await t.services.db.user.findMany({ where: { email: { startsWith: `crowd-${run}-` } }, select: { passwordHash: true } });
    expect(stored).toHaveLength(60);
    for (const { passwordHash } of stored) expect(passwordHash).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$/);
  }, 300_000);
});

describe("an account from before, with a bcrypt hash", () => {
  it("signs in, and its stored hash is then scrypt, which the next sign-in checks", async () => {
    const email = "legacy@example.test";
    // As the old code stored it: bcryptjs at cost 10.
    const old = await bcrypt.hash("an old password", 10);
    await t.services.db.user.create({ data: { email, passwordHash: old } });

    expect((await call(web.url, "auth.signIn", { email, password: "an old passworD" })).status).toBe(401);
    expect((await t.services.db.user.findUniqueOrThrow({ where: { email } })).passwordHash).toBe(old); // a wrong password rehashes nothing

    expect((await call(web.url, "auth.signIn", { email, password: "an old password" })).status).toBe(200);
    const rehashed = (await t.services.db.user.findUniqueOrThrow({ where: { email } })).passwordHash;
    expect(rehashed).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$/);
    expect(await t.services.passwords.verify("an old password", rehashed)).toBe(true);

    expect((await call(web.url, "auth.signIn", { email, password: "an old password" })).status).toBe(200);
    expect((await t.services.db.user.findUniqueOrThrow({ where: { email } })).passwordHash).toBe(rehashed);
  }, 60_000);
});

describe("more sign-ups than the bound and its line", () => {
  it("the ones past it get 503 with Retry-After in tRPC's shape, in the caller's language, and change nothing", async () => {
    const tight = await startWeb(t.childEnv, { REQUEST_RATE_PER_IP: "0", PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_QUEUE_LIMIT: "2" });
    try {
      // Its route's code loaded first, as in the crowd above: the first call's load stalls a cold process.
      expect((await call(tight.url, "auth.signUp", { email: "warm@example.test", password: "warm-password" })).status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(
            tight.url,
            "auth.signUp",
            { email: `tight-${i}@example.test`, password: `tight-password-${i}` },
            { "accept-language": "zh-CN" },
          ),
        ),
      );
      const busy = answers.filter((answer) => answer.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(
        answers
          .filter((answer) => answer.status !== 503)
          .map((answer) => `${answer.status} ${answer.status === 200 ? "" : answer.body}`.trim()),
      ).toEqual(answers.filter((answer) => answer.status !== 503).map(() => "200"));
      for (const answer of busy) {
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        const error = (JSON.parse(answer.body) as { error: { json: { message: string; data: { code: string; httpStatus: number } } } })
          .error.json;
        expect(error.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", httpStatus: 503 });
        expect(error.message).toMatch(/^同时登录和注册的人数过多，请 \d+ 秒后再试。$/);
      }
      expect(await t.services.db.user.count({ where: { email: { startsWith: "tight-" } } })).toBe(12 - busy.length);
    } finally {
      await tight.stop();
    }
  }, 240_000);
});
