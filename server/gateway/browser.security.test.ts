import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { createLiveSale, createTestEnvironment, startSystem, waitFor, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { warmUpSale } from "../warmup/warmup";
import { QUEUE } from "../queues/queues";
import { freePort } from "../lib/net";

/**
 * The browser-facing findings of issue #26, each attacked over real HTTP (and, where the attack is
 * the browser's, in Chromium) through npm start's front door, web, seckill service and worker:
 * sessions that outlive sign-out, cross-site and form-bodied mutations, missing security headers,
 * an open redirect after sign-in, public metrics, malformed session cookies, someone else's
 * purchase result, and queue-board actions that bypass the domain.
 */
let t: TestEnvironment;
let system: ChildHandle & { url: string };
let seckillUrl: string;
let browser: Browser | undefined;
const METRICS_TOKEN = "metrics-token-for-the-security-suite-0123";
const EVIL = "https://evil.example";

beforeAll(async () => {
  t = await createTestEnvironment("security_browser");
  // One trusted hop in front (a production load balancer): the suite plays it, so a request it
  // sends with X-Forwarded-For comes "from" that address (the /api/metrics test needs a public one).
  // The seckill service's own port named, so the suite can also reach it past the front door.
  const seckillPort = await freePort();
  system = await startSystem(t.childEnv, { DEMO_SALE: "0", TRUSTED_PROXY_HOPS: "1", METRICS_TOKEN, SECKILL_PORT: String(seckillPort) });
  seckillUrl = `http://127.0.0.1:${seckillPort}`;
});
afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await t?.cleanup();
});

async function launchBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  return browser;
}

interface Call {
  method?: "GET" | "POST" | "PUT" | "PATCH";
  bearer?: string;
  cookie?: string;
  origin?: string | null;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
  base?: string;
}

/** A request as a browser or a script sends it: a same-site Origin unless told otherwise. */
async function send(path: string, call: Call = {}) {
  const method = call.method ?? (call.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { ...call.headers };
  if (call.bearer) headers.authorization = `Bearer ${call.bearer}`;
  if (call.cookie) headers.cookie = call.cookie;
  const origin = call.origin === undefined ? system.url : call.origin;
  if (origin !== null && method !== "GET") headers.origin = origin;
  if (call.contentType) headers["content-type"] = call.contentType;
  const response = await fetch(`${call.base ?? system.url}${path}`, { method, headers, body: call.body, redirect: "manual" });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the text is the answer
  }
  return { status: response.status, headers: response.headers, text, json };
}

const trpcBody = (input: unknown) => JSON.stringify({ json: input });

/** A tRPC mutation over HTTP with a JSON body. */
const mutate = (path: string, input: unknown, call: Call = {}) =>
  send(`/api/${path.startsWith("seckill.") && path !== "seckill.result" ? "seckill" : "trpc"}/${path}`, {
    contentType: "application/json",
    body: trpcBody(input),
    ...call,
  });

/** A tRPC query over HTTP. */
const query = (path: string, input: unknown, call: Call = {}) =>
  send(`/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(trpcBody(input))}`}`, call);

interface Account {
  id: number;
  email: string;
  password: string;
  token: string;
  cookie: string;
}

let accounts = 0;
async function signUp(role: "SHOPPER" | "ADMIN" = "SHOPPER"): Promise<Account> {
  const email = `browser-${++accounts}-${Date.now()}@example.test`;
  const password = "a-good-long-password";
  const answer = await mutate("auth.signUp", { email, password });
  expect(answer.status, answer.text).toBe(200);
  const id = answer.json.result.data.json.user.id as number;
  if (role === "ADMIN") await t.services.db.user.update({ where: { id }, data: { role: "ADMIN" } });
  return signIn({ id, email, password });
}

async function signIn(account: { id: number; email: string; password: string }): Promise<Account> {
  const answer = await mutate("auth.signIn", { email: account.email, password: account.password });
  expect(answer.status, answer.text).toBe(200);
  const token = answer.json.result.data.json.token as string;
  return { ...account, token, cookie: `fs_session=${encodeURIComponent(token)}` };
}

const ENDED = "Your session has ended. Sign in again.";

/** Waits (a few seconds at most) until the token is refused as ended by web and the seckill service. */
async function expectEndedEverywhere(token: string, adminPath = false) {
  const ended = async () => {
    const web = adminPath
      ? await query("admin.sales", undefined, { bearer: token })
      : await query("order.list", undefined, { bearer: token });
    const seckill = await mutate("seckill.token", { saleId: 1 }, { bearer: token });
    return [web, seckill].every((a) => a.status === 401 && a.json?.error?.json?.message === ENDED);
  };
  await waitFor(ended, 3000, "the session to end on web and on the seckill service");
}

function runCli(script: string, args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { env: { ...process.env, ...t.childEnv }, stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

describe("sessions", () => {
  it("end everywhere within seconds of sign-out, demotion, blacklisting and a password change", async () => {
    // Sign-out ends every session of that account, the one that signed out and any other.
    const shopper = await signUp();
    const otherDevice = await signIn(shopper);
    expect((await query("order.list", undefined, { bearer: shopper.token })).status).toBe(200);
    expect((await mutate("seckill.token", { saleId: 1 }, { bearer: otherDevice.token })).status).toBe(404); // no sale 1: but signed in
    const signedOut = await mutate("auth.signOut", undefined, { cookie: shopper.cookie });
    expect(signedOut.status, signedOut.text).toBe(200);
    await expectEndedEverywhere(shopper.token);
    await expectEndedEverywhere(otherDevice.token);
    // A fresh sign-in right after works.
    const again = await signIn(shopper);
    expect((await query("order.list", undefined, { bearer: again.token })).status).toBe(200);

    // Blacklisting (the admin's user-flags procedure) ends the shopper's sessions.
    const admin = await signUp("ADMIN");
    const blacklisted = await mutate("admin.updateStanding", { userId: again.id, blacklisted: true }, { bearer: admin.token });
    expect(blacklisted.status, blacklisted.text).toBe(200);
    await expectEndedEverywhere(again.token);

    // Demotion ends the demoted admin's sessions: its token no longer opens the console.
    const colleague = await signUp("ADMIN");
    expect((await query("admin.sales", undefined, { bearer: colleague.token })).status).toBe(200);
    const demoted = await mutate("admin.setRole", { userId: colleague.id, role: "SHOPPER" }, { bearer: admin.token });
    expect(demoted.status, demoted.text).toBe(200);
    await expectEndedEverywhere(colleague.token, true);

    // A password change (npm run admin:create on the account) ends its sessions, from another process.
    const beforeChange = await signIn(colleague);
    expect((await query("order.list", undefined, { bearer: beforeChange.token })).status).toBe(200);
    expect(await runCli("server/cli/create-admin.ts", ["--email", colleague.email, "--password", "another-long-password"])).toBe(0);
    await expectEndedEverywhere(beforeChange.token);
    const withNewPassword = await signIn({ ...colleague, password: "another-long-password" });
    expect((await query("admin.sales", undefined, { bearer: withNewPassword.token })).status).toBe(200);
  });
});

describe("cross-site requests", () => {
  it("refuses cookie-authenticated mutations from another site; bearer clients need no Origin", async () => {
    const shopper = await signUp();
    const admin = await signUp("ADMIN");
    // A form or fetch from another site carries the victim's cookie and that site's Origin.
    for (const path of ["auth.signOut", "seckill.token"]) {
      const input = path === "seckill.token" ? { saleId: 1 } : undefined;
      const crossSite = await mutate(path, input, { cookie: shopper.cookie, origin: EVIL });
      expect(crossSite.status, `${path}: ${crossSite.text}`).toBe(403);
      const noOrigin = await mutate(path, input, { cookie: shopper.cookie, origin: null, headers: { "sec-fetch-site": "cross-site" } });
      expect(noOrigin.status, `${path} without Origin: ${noOrigin.text}`).toBe(403);
    }
    // The session survived the attempts; this site's own requests and bearer clients pass.
    expect((await query("order.list", undefined, { cookie: shopper.cookie })).status).toBe(200);
    expect((await mutate("seckill.token", { saleId: 1 }, { cookie: shopper.cookie })).status).toBe(404);
    expect(
      (await mutate("seckill.token", { saleId: 1 }, { cookie: shopper.cookie, origin: null, headers: { "sec-fetch-site": "same-origin" } }))
        .status,
    ).toBe(404);
    expect((await mutate("seckill.token", { saleId: 1 }, { bearer: shopper.token, origin: null })).status).toBe(404);
    // The queue board's actions too.
    const board = await send(`/admin/queues/api/queues/${QUEUE.createOrder}/retry/failed`, {
      method: "PUT",
      cookie: admin.cookie,
      origin: EVIL,
    });
    expect(board.status, board.text).toBe(403);
    expect((await send(`/admin/queues/api/queues/${QUEUE.createOrder}/retry/failed`, { method: "PUT", cookie: admin.cookie })).status).toBe(
      200,
    );
  });
});

describe("request bodies", () => {
  it("tRPC and the queue board take JSON only: form and text bodies get 415", async () => {
    const shopper = await signUp();
    const admin = await signUp("ADMIN");
    const form = new FormData();
    form.set("email", shopper.email);
    form.set("password", shopper.password);
    const multipart = new Request("http://x", { method: "POST", body: form });
    const formBody = await multipart.text();
    const formType = multipart.headers.get("content-type")!;
    for (const [path, base] of [
      ["/api/trpc/auth.signIn", system.url],
      ["/api/seckill/seckill.token", system.url],
      ["/api/seckill/seckill.token", seckillUrl],
    ] as const) {
      for (const [contentType, body] of [
        [formType, formBody],
        ["application/x-www-form-urlencoded", "email=a%40b.c&password=12345678"],
        ["text/plain", trpcBody({ saleId: 1 })],
      ]) {
        const answer = await send(path, { base, contentType, body, bearer: shopper.token });
        expect(answer.status, `${path} as ${contentType} at ${base}: ${answer.text}`).toBe(415);
        expect(answer.text).toContain("application/json");
      }
    }
    const textJob = await send(`/admin/queues/api/queues/${QUEUE.createOrder}/retry/failed`, {
      method: "PUT",
      bearer: admin.token,
      contentType: "text/plain",
      body: "{}",
    });
    expect(textJob.status, textJob.text).toBe(415);
  });
});

const NEEDED_HEADERS = ["content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options"];

describe("security headers", () => {
  it("every page and API answer carries them, HSTS only behind TLS, and pages render in Chromium without a CSP violation", async () => {
    const admin = await signUp("ADMIN");
    const { saleId } = await createLiveSale(t.services, { stock: 5, productName: "Headers lamp" });
    await warmUpSale(t.services, saleId);
    for (const path of [
      "/",
      `/sales/${saleId}`,
      "/sign-in",
      "/admin",
      "/admin/queues",
      "/pay/sandbox",
      "/orders",
      "/api/health",
      `/api/trpc/clock.now`,
    ]) {
      const answer = await send(path, { cookie: path.startsWith("/admin") ? admin.cookie : undefined });
      for (const name of NEEDED_HEADERS) expect(answer.headers.get(name), `${name} on ${path}`).toBeTruthy();
      const csp = answer.headers.get("content-security-policy")!;
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toMatch(/https?:\/\//); // nothing from another origin, no CDN
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toMatch(/^(strict-origin-when-cross-origin|strict-origin|same-origin|no-referrer)$/);
      expect(answer.headers.get("strict-transport-security"), `HSTS over plain HTTP on ${path}`).toBeNull();
    }
    const overTls = await send("/", { headers: { "x-forwarded-proto": "https" } });
    expect(overTls.headers.get("strict-transport-security")).toMatch(/max-age=\d{7,}/);
    // The seckill service's answers cannot be sniffed into something else either.
    const seckill = await mutate("seckill.token", { saleId }, { base: seckillUrl });
    expect(seckill.headers.get("x-content-type-options")).toBe("nosniff");

    // Pages still work under the policy: no violation on the storefront, the dashboard (recharts) or the queue board.
    const context = await (await launchBrowser()).newContext({ baseURL: system.url });
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const seen = ((window as unknown as { __violations?: string[] }).__violations ??= []);
        seen.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    await context.addCookies([{ name: "fs_session", value: encodeURIComponent(admin.token), url: system.url }]);
    const violations: string[] = [];
    const page = await context.newPage();
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
    });
    const visit = async (path: string, ready: (page: Page) => Promise<unknown>) => {
      await page.goto(path);
      await ready(page);
      await page.waitForTimeout(500);
      violations.push(
        ...(await page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? [])).map((v) => `${path}: ${v}`),
      );
    };
    await visit("/", (p) => p.getByText("Headers lamp").first().waitFor());
    await visit(`/sales/${saleId}`, (p) => p.getByRole("button", { name: /buy/i }).first().waitFor());
    await visit("/admin", (p) => p.getByText("Headers lamp").first().waitFor());
    await visit(`/admin/sales/${saleId}`, (p) => p.locator(".recharts-wrapper").first().waitFor());
    await visit("/admin/queues", (p) => p.getByText(QUEUE.createOrder).first().waitFor());
    await context.close();
    expect(violations).toEqual([]);
  });
});

describe("redirects after sign-in", () => {
  it("?next= never leaves the site, however it is encoded", async () => {
    const shopper = await signUp();
    const context = await (await launchBrowser()).newContext({ baseURL: system.url });
    const left: string[] = [];
    // Anything addressed to another host is recorded and never fetched.
    await context.route(
      (url) => url.origin !== system.url,
      (route) => {
        left.push(route.request().url());
        return route.abort();
      },
    );
    for (const next of ["/%09/evil.example", "/%5C/evil.example", "/%2F%2Fevil.example", "//evil.example", "/.//evil.example"]) {
      const page = await context.newPage();
      await page.goto(`/sign-in?next=${next}`);
      await page.getByLabel("Email").fill(shopper.email);
      await page.getByLabel("Password").fill(shopper.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      const signedIn = page.getByRole("button", { name: "Sign out" });
      await waitFor(async () => left.length > 0 || (await signedIn.isVisible()), 15_000, `sign-in with ?next=${next} to finish`);
      await page.waitForTimeout(500);
      expect(left, `after ?next=${next}`).toEqual([]);
      expect(new URL(page.url()).origin, `after ?next=${next}`).toBe(system.url);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("link", { name: "Sign in" }).first().waitFor();
      await page.close();
    }
    await context.close();
  });
});

describe("/api/metrics", () => {
  it("wants the bearer token from a public address, on web and on the seckill service", async () => {
    for (const base of [system.url, seckillUrl]) {
      const fromPublic = await send("/api/metrics", { base, headers: { "x-forwarded-for": "203.0.113.9" } });
      expect(fromPublic.status, `${base}: ${fromPublic.text.slice(0, 200)}`).toBe(401);
      expect(fromPublic.text).not.toContain("seckill_");
      expect(
        (
          await send("/api/metrics", {
            base,
            headers: { "x-forwarded-for": "203.0.113.9", authorization: "Bearer wrong-token-of-some-length" },
          })
        ).status,
      ).toBe(401);
      const withToken = await send("/api/metrics", {
        base,
        headers: { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(withToken.status).toBe(200);
      expect(withToken.text).toContain("seckill_");
      // A scrape from a private address (Prometheus beside the app) needs no token.
      for (const address of ["10.1.2.3", "127.0.0.1"]) {
        expect((await send("/api/metrics", { base, headers: { "x-forwarded-for": address } })).status, `${base} from ${address}`).toBe(200);
      }
    }
  });
});

describe("a malformed session cookie", () => {
  it("is no session: 401 where one is needed, public calls work, never a 500", async () => {
    const garbage = ["%", "%E0%A4%A", "a.b.c", "x".repeat(6000), "eyJhbGciOiJIUzI1NiJ9.%FF.%00", "\u00e9t\u00e9"];
    for (const value of garbage) {
      const cookie = `fs_session=${value.replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c))}`;
      const label = value.slice(0, 20);
      expect((await query("clock.now", undefined, { cookie })).status, `clock.now with ${label}`).toBe(200);
      expect((await query("auth.me", undefined, { cookie })).json?.result?.data?.json, `auth.me with ${label}`).toBeNull();
      expect((await query("order.list", undefined, { cookie })).status, `order.list with ${label}`).toBe(401);
      expect((await mutate("seckill.token", { saleId: 1 }, { cookie })).status, `seckill.token with ${label}`).toBe(401);
      expect((await send("/admin/queues", { cookie })).status, `queue board with ${label}`).toBe(303);
    }
  });
});

describe("someone else's purchase result", () => {
  it("is NOT_FOUND on seckill.onResult and seckill.result, and logs no error", async () => {
    const alice = await signUp();
    const bob = await signUp();
    const reservationId = `1-${alice.id}-0123456789abcdef`;
    const logBefore = system.output().length;
    expect((await query("seckill.result", { reservationId }, { bearer: bob.token })).json?.error?.json?.data?.code).toBe("NOT_FOUND");

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const stream = await fetch(`${system.url}/api/trpc/seckill.onResult?input=${encodeURIComponent(trpcBody({ reservationId }))}`, {
      headers: { authorization: `Bearer ${bob.token}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    let events = "";
    const decoder = new TextDecoder();
    const reader = stream.body!.getReader();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        events += decoder.decode(chunk.value, { stream: true });
        if (/event: serialized-error\ndata: .*\n/.test(events)) break;
      }
    } catch {
      // aborted: the assertion below says what arrived
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    const error = /event: serialized-error\ndata: (.*)\n/.exec(events)?.[1];
    expect(error, events).toBeDefined();
    expect(JSON.parse(error!)).toMatchObject({ json: { data: { code: "NOT_FOUND", httpStatus: 404 } } });
    await new Promise((r) => setTimeout(r, 500));
    expect(system.output().slice(logBefore)).not.toMatch(/"level":50|tRPC procedure failed/);
  });
});

describe("the queue board", () => {
  it("cannot add jobs, edit their data, promote pay-deadline timers or clean queues", async () => {
    const admin = await signUp("ADMIN");
    const jobsBefore = await t.services.queues.createOrder.count();
    const forged = {
      reservations: [{ reservationId: `1-${admin.id}-0123456789abcdef`, saleId: 1, userId: admin.id, reservedAt: Date.now() }],
    };
    const json = { bearer: admin.token, contentType: "application/json" };
    const refused: [string, Call][] = [
      [
        `/admin/queues/api/queues/${QUEUE.createOrder}/add`,
        { ...json, body: JSON.stringify({ name: "create-order", data: forged, options: {} }) },
      ],
      [
        `/admin/queues/api/queues/${QUEUE.paymentNotify}/add`,
        { ...json, body: JSON.stringify({ name: "payment-notify", data: {}, options: {} }) },
      ],
      [`/admin/queues/api/queues/${QUEUE.cancelOrder}/promote`, { ...json, method: "PUT" }],
      [`/admin/queues/api/queues/${QUEUE.createOrder}/clean/completed`, { ...json, method: "PUT" }],
      [`/admin/queues/api/queues/${QUEUE.cancelOrder}/clean/delayed`, { ...json, method: "PUT" }],
      [
        `/admin/queues/api/queues/${QUEUE.createOrder}/some-job/update-data`,
        { ...json, method: "PATCH", body: JSON.stringify({ data: forged }) },
      ],
      [`/admin/queues/api/queues/${QUEUE.createOrder}/empty`, { ...json, method: "PUT" }],
    ];
    for (const [path, call] of refused) {
      const answer = await send(path, { method: "POST", ...call });
      expect(answer.status, `${path}: ${answer.text}`).toBe(405);
    }
    expect(await t.services.queues.createOrder.count()).toBe(jobsBefore);
    expect(await t.services.queues.paymentNotify.count()).toBe(0);
    // Inspecting, and retrying failed jobs with the data they failed with, still work.
    const queues = await send("/admin/queues/api/queues", { bearer: admin.token });
    expect(queues.status).toBe(200);
    const byName = new Map((queues.json.queues as { name: string; readOnlyMode: boolean }[]).map((q) => [q.name, q]));
    expect(byName.get(QUEUE.cancelOrder)?.readOnlyMode).toBe(true);
    expect((await send(`/admin/queues/api/queues/${QUEUE.createOrder}/retry/failed`, { method: "PUT", bearer: admin.token })).status).toBe(
      200,
    );
  });
});
