import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapConcurrently, readMetric } from "../testing/harness";
import { joinSharedSystem, SHARED_SYSTEMS, type JoinedSystem, type SharedSystemInfo } from "../testing/shared-systems";
import { createShoppers, SEED_PASSWORD } from "../testing/seed";

// The shared system's sales are other files' (one sold out is answered before the session is
// read): the unsigned calls here name a sale no file makes.
const NO_SUCH_SALE = 987654;

/**
 * Issue #26's gateway findings, attacked as the attack was made: over real HTTP through `npm
 * start`'s front door, from several real loopback addresses (Linux routes all of 127/8 to the
 * loopback interface, so a client can connect from 127.0.0.x as if it were another machine).
 */

// The low-rate shared system: a request rate and sign-in limits small enough to reach in one burst.
const LOW_RATE = SHARED_SYSTEMS["low-rate"];
const PER_IP = Number(LOW_RATE.REQUEST_RATE_PER_IP);
const ACCOUNT_FAILURES = Number(LOW_RATE.SIGN_IN_MAX_FAILURES_PER_ACCOUNT);
const IP_FAILURES = Number(LOW_RATE.SIGN_IN_MAX_FAILURES_PER_IP);

let t: JoinedSystem;
let system: SharedSystemInfo;
let port: number;

beforeAll(async () => {
  t = await joinSharedSystem("low-rate");
  system = t.system;
  port = Number(new URL(system.url).port);
});
afterAll(() => t?.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection from the loopback address `from`, optionally with a forged X-Forwarded-For. */
function send(from: string, path: string, options: { method?: string; forwardedFor?: string; body?: unknown } = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress: from,
        agent: false,
        method: options.method ?? (payload ? "POST" : "GET"),
        path,
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
          ...(options.forwardedFor ? { "x-forwarded-for": options.forwardedFor } : {}),
        },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

const signInBody = (email: string, password: string) => ({ json: { email, password } });

/** A different made-up public address for every call: what a rotating X-Forwarded-For sends. */
const spoofed = (i: number) => `198.51.${(i >> 8) & 255}.${i & 255}`;

/** Waits for the start of a fresh one-second window, so a burst likely fits in one. */
async function freshSecond() {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
}

/** `count` calls in a burst from `from`; how many the gate let through, and how many one-second windows the burst touched. */
async function burst(from: string, count: number, call: (i: number) => Promise<Answer>) {
  await freshSecond();
  const started = Date.now();
  const answers = await mapConcurrently(
    Array.from({ length: count }, (_, i) => i),
    50,
    call,
  );
  const windows = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  const admitted = answers.filter((a) => a.status !== 429).length;
  // Any answer but the procedure's own and the gate's 429 is listed in the failure.
  return { admitted, windows, statuses: new Set(answers.map((a) => a.status)) };
}

/** The client addresses the request-rate limiter has counted so far (from its Redis keys). */
async function countedAddresses(): Promise<Set<string>> {
  const keys = await t.services.redis.keys(`${t.env.REDIS_NAMESPACE}:ratelimit:ip*`);
  return new Set(keys.map((key) => /\{ip:([^}]*)\}/.exec(key)?.[1] ?? key));
}

/** A sliding one-second window lets at most the limit through in each window a burst touches. */
function expectLimited(run: { admitted: number; windows: number }) {
  expect(run.admitted).toBeGreaterThan(0);
  expect(run.admitted).toBeLessThanOrEqual(PER_IP * run.windows);
  if (run.windows === 1) expect(run.admitted).toBe(PER_IP);
}

describe("client address: the per-IP request rate counts the connection, never a header a client wrote", () => {
  it("300 calls with a rotating X-Forwarded-For are limited exactly as 300 without it", async () => {
    const plain = await burst("127.0.0.2", 300, () => send("127.0.0.2", "/api/trpc/clock.now"));
    const rotating = await burst("127.0.0.3", 300, (i) => send("127.0.0.3", "/api/trpc/clock.now", { forwardedFor: spoofed(i) }));
    expect([...plain.statuses].sort()).toEqual([200, 429]);
    expect([...rotating.statuses].sort()).toEqual([200, 429]);
    expectLimited(plain);
    expectLimited(rotating);
    // Every call was counted against the address it came from, none against a forged one.
    const counted = await countedAddresses();
    expect([...counted].filter((address) => address.startsWith("198.51."))).toEqual([]);
    expect(counted).toContain("127.0.0.3");
  });

  it("a client writing a victim's address drains only its own allowance", async () => {
    const victim = "127.0.0.5";
    let victimAnswers: Answer[] = [];
    await burst("127.0.0.4", 300, async (i) => {
      // Halfway through the attack, the victim makes its few calls.
      if (i === 150) victimAnswers = await Promise.all(Array.from({ length: PER_IP }, () => send(victim, "/api/trpc/clock.now")));
      return send("127.0.0.4", "/api/trpc/clock.now", { forwardedFor: victim });
    });
    expect(victimAnswers.map((a) => a.status)).toEqual(victimAnswers.map(() => 200));
  });

  it("the seckill service behind the front door follows the same rule", async () => {
    const token = (from: string, forwardedFor?: string) =>
      send(from, "/api/seckill/seckill.token", { body: { json: { saleId: NO_SUCH_SALE } }, forwardedFor });
    const rotating = await burst("127.0.0.6", 300, (i) => token("127.0.0.6", spoofed(i)));
    // Not signed in: a call the gate lets through is answered 401 by the procedure.
    expect([...rotating.statuses].sort()).toEqual([401, 429]);
    expectLimited(rotating);
    expect([...(await countedAddresses())].filter((address) => address.startsWith("198.51."))).toEqual([]);
  });
});

describe("every call counts: batches are bounded and sign-in guesses are throttled before the password check", () => {
  const wrongPasswords = (n: number) => Array.from({ length: n }, (_, i) => `not-the-password-${i}`);
  const passwordChecks = () => readMetric(system.url, "auth_password_checks_total");
  const sessionIn = (answer: Answer) =>
    answer.status === 200 || /"token"/.test(answer.body) || String(answer.headers["set-cookie"] ?? "").includes("fs_session=ey");

  it("a batch is charged per call, and one over the batch bound is refused", async () => {
    const batch = (n: number) => `/api/trpc/${Array.from({ length: n }, () => "clock.now").join(",")}?batch=1`;
    // One more call than the per-IP request rate, in one request: refused as that many calls.
    expect((await send("127.0.0.7", batch(PER_IP + 1))).status).toBe(429);
    const oversized = await send("127.0.0.8", batch(11));
    expect(oversized.status).toBe(400);
    expect(oversized.body).toMatch(/at most 10 calls/);
  });

  it("200 guesses batched in one request find nothing and check no password", async () => {
    const [victim] = await createShoppers(t.services, 1, { emailPrefix: "batched-victim" });
    const guesses = [...wrongPasswords(199), SEED_PASSWORD];
    const checksBefore = await passwordChecks();
    const path = `/api/trpc/${guesses.map(() => "auth.signIn").join(",")}?batch=1`;
    const body = Object.fromEntries(guesses.map((password, i) => [i, signInBody(victim!.email, password)]));
    const answer = await send("127.0.0.9", path, { body });
    expect(sessionIn(answer)).toBe(false);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/auth\.\* calls cannot be batched/);
    expect((await passwordChecks()) - checksBefore).toBe(0);
  });

  it("200 parallel guesses spread over addresses (real and forged) find nothing, and passwords are checked at most the account's allowance", async () => {
    const [victim] = await createShoppers(t.services, 1, { emailPrefix: "parallel-victim" });
    const checksBefore = await passwordChecks();
    // 40 real addresses, 5 guesses each (no more than the per-IP request rate lets through), every one
    // with a forged X-Forwarded-For as well: only the per-account throttle stands in the way.
    const from = (i: number) => `127.0.1.${10 + (i % 40)}`;
    const guess = (password: string, i: number) =>
      send(from(i), "/api/trpc/auth.signIn", { body: signInBody(victim!.email, password), forwardedFor: spoofed(i) });
    let answered = 0;
    const wrong = Promise.all(wrongPasswords(199).map((password, i) => guess(password, i).finally(() => answered++)));
    // The right password goes last, once the account's allowance is surely spent.
    while (answered < ACCOUNT_FAILURES) await new Promise((resolve) => setTimeout(resolve, 20));
    const right = await guess(SEED_PASSWORD, 199);
    const answers = [...(await wrong), right];

    expect(answers.filter(sessionIn)).toEqual([]);
    expect([...new Set(answers.map((a) => a.status))].sort()).toEqual([401, 429]);
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(ACCOUNT_FAILURES);
    expect((await passwordChecks()) - checksBefore).toBeLessThanOrEqual(ACCOUNT_FAILURES);
    // The throttled answer says what happened and when to try again.
    expect(right.status).toBe(429);
    expect(Number(right.headers["retry-after"])).toBeGreaterThan(500);
    expect(JSON.parse(right.body)).toMatchObject({
      error: {
        json: {
          data: { code: "TOO_MANY_REQUESTS" },
          message: expect.stringMatching(/Too many failed sign-ins for this account\. Try again in 1\d minutes\./),
        },
      },
    });
  });

  it("one address trying many accounts is throttled too", async () => {
    const accounts = await createShoppers(t.services, IP_FAILURES + 4, { emailPrefix: "sprayed" });
    const answers: Answer[] = [];
    for (const account of accounts) {
      answers.push(await send("127.0.2.1", "/api/trpc/auth.signIn", { body: signInBody(account.email, "password-spray-1") }));
      // Slower than the per-IP rate limit, so only the sign-in throttle refuses.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(answers.map((a) => a.status)).toEqual(accounts.map((_, i) => (i < IP_FAILURES ? 401 : 429)));
    expect(answers.at(-1)!.body).toMatch(/Too many failed sign-ins from your address/);
    // Counted against the address the connection came from, as the web's front door resolved it.
    expect(await t.services.redis.exists(`${t.env.REDIS_NAMESPACE}:signin:{ip:127.0.2.1}`)).toBe(1);
  });
});

describe("the password cap: huge inputs refused, bcrypt's 72 bytes no longer one", () => {
  it("a 257-character password is refused at sign-up and at sign-in with a clear message for the field; 73 bytes sign up", async () => {
    const password = "秒".repeat(257); // 257 characters
    for (const procedure of ["auth.signUp", "auth.signIn"]) {
      const answer = await send("127.0.3.1", `/api/trpc/${procedure}`, { body: signInBody("long-password@example.com", password) });
      expect(answer.status).toBe(400);
      const error = (JSON.parse(answer.body) as { error: { json: { message: string; data: { fieldErrors: Record<string, string[]> } } } })
        .error.json;
      expect(error.data.fieldErrors.password).toEqual(["Use at most 256 characters"]);
    }
    expect(await t.services.db.user.count({ where: { email: "long-password@example.com" } })).toBe(0);
    // scrypt reads a password whole: what bcrypt would have cut short is a password like any other.
    const seventyThreeBytes = `${"é".repeat(36)}x`;
    expect(
      (await send("127.0.3.2", "/api/trpc/auth.signUp", { body: signInBody("long-password@example.com", seventyThreeBytes) })).status,
    ).toBe(200);
    expect(
      (await send("127.0.3.2", "/api/trpc/auth.signIn", { body: signInBody("long-password@example.com", `${"é".repeat(36)}y`) })).status,
    ).toBe(401);
  });
});
