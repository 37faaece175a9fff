import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapConcurrently } from "../testing/harness";
import { joinSharedSystem, type JoinedSystem } from "../testing/shared-systems";
import { readEnv } from "../platform/env";
import { DEVICE_COOKIE } from "./device-cookie";

/**
 * Issue #42, attacked as a scalper would, over real HTTP through `npm start`'s front door with the
 * sign-up limits a shop ships (server/env.ts defaults, not the harness's "off"): spellings of one
 * Gmail mailbox, and a flood of sign-ups from one address. Each loopback address 127.0.x.y is a
 * client of its own (Linux routes all of 127/8 to the loopback interface).
 */

const SHIPPED = readEnv({});
const ALLOWANCE = SHIPPED.SIGN_UP_MAX_PER_ADDRESS;

let t: JoinedSystem;
let port: number;

// The shop's shared system runs the shipped sign-up limits (SHARED_SYSTEMS.shop writes them out).
beforeAll(async () => {
  t = await joinSharedSystem("shop");
  port = Number(new URL(t.system.url).port);
});
afterAll(() => t?.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection from the loopback address `from`. */
function send(from: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress: from,
        agent: false,
        method: payload ? "POST" : "GET",
        path,
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
          ...options.headers,
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

const signUp = (from: string, email: string, headers: Record<string, string> = {}) =>
  send(from, "/api/trpc/auth.signUp", { body: { json: { email, password: "a-long-enough-password" } }, headers });
const messageOf = (answer: Answer) => (JSON.parse(answer.body) as { error: { json: { message: string } } }).error.json.message;

/** The device cookie a page load hands out (proxy.ts), as `fs_device=<value>`. */
async function deviceCookieFrom(from: string): Promise<{ cookie: string; setCookie: string }> {
  const page = await send(from, "/sign-up");
  expect(page.status).toBe(200);
  const setCookie = (page.headers["set-cookie"] ?? []).find((line) => line.startsWith(`${DEVICE_COOKIE}=`));
  expect(setCookie).toBeDefined();
  return { cookie: setCookie!.split(";")[0]!, setCookie: setCookie! };
}

describe("sign-up: one account per mailbox", () => {
  it("20 spellings of one Gmail mailbox make exactly 1 account; every other gets the answer a duplicate gets, in its language", async () => {
    const spellings = [
      "johnsmith@gmail.com",
      "JohnSmith@gmail.com",
      "john.smith@gmail.com",
      "J.O.H.N.S.M.I.T.H@GMAIL.COM",
      "john.smith+1@gmail.com",
      "johnsmith+sale@googlemail.com",
      "John.Smith+a.b@GoogleMail.Com",
      "johnsmith@GMAIL.com",
      "john.s.mith@gmail.com",
      "j.ohnsmith@gmail.com",
      "jo.hnsmith@gmail.com",
      "JOHNSMITH+x@googlemail.com",
      "jo.hn.sm.ith@gmail.com",
      "john.smith+tag+more@gmail.com",
      "JoHnSmItH@GoogleMail.com",
      "jOhNsMiTh+@gmail.com",
      "johns.mith@googlemail.com",
      "j.o.hnsmith+2@gmail.com",
      "John.Smith+3@GMAIL.COM",
      "j.ohnsmith+x@GMAIL.com",
    ];
    expect(new Set(spellings).size).toBe(20);
    // The shared system's database holds other files' accounts: count the new ones (files run one at a time).
    const usersBefore = await t.services.db.user.count();
    // Each from an address of its own, so the sign-up limit is not what refuses them.
    const answers = await mapConcurrently(spellings, 4, (email, i) =>
      signUp(`127.0.40.${i + 1}`, email, i % 2 ? { "accept-language": "zh-CN,zh;q=0.9" } : {}),
    );
    expect(answers.filter((a) => a.status !== 409).map((a) => `${a.status} ${a.body}`)).toEqual([expect.stringMatching(/^200 /)]);
    expect((await t.services.db.user.count()) - usersBefore).toBe(1);
    const account = await t.services.db.user.findFirstOrThrow({ select: { email: true, emailCanonical: true }, orderBy: { id: "desc" } });
    expect(account.emailCanonical).toBe("johnsmith@gmail.com");

    // Exactly "already registered": the very answer the stored address itself gets, in each language.
    const same = await signUp("127.0.41.1", account.email);
    const sameZh = await signUp("127.0.41.2", account.email, { "accept-language": "zh-CN" });
    expect([same.status, sameZh.status]).toEqual([409, 409]);
    expect(messageOf(same)).toBe("An account with this email already exists. Sign in instead.");
    expect(messageOf(sameZh)).toBe("该邮箱已注册，请直接登录。");
    answers.forEach((answer, i) => {
      if (answer.status !== 409) return;
      expect(answer.body).toBe(i % 2 ? sameZh.body : same.body);
    });

    // And the one account signs in by any spelling.
    const signedIn = await send("127.0.41.3", "/api/trpc/auth.signIn", {
      body: { json: { email: "J.O.H.N.Smith+later@googlemail.com", password: "a-long-enough-password" } },
    });
    expect(signedIn.status).toBe(200);
  });
});

describe("sign-up: a flood from one address", () => {
  it("hands a browser a signed, httpOnly, long-lived device cookie on its first page", async () => {
    const { setCookie } = await deviceCookieFrom("127.0.50.1");
    // Plain HTTP and the harness's NODE_ENV=test: no Secure here (device-cookie.test.ts checks it over HTTPS and in production).
    expect(setCookie).toMatch(
      new RegExp(`^${DEVICE_COOKIE}=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{22}; Path=/; HttpOnly; SameSite=Lax; Max-Age=\\d{8}$`),
    );
    // A browser that has one keeps it: no new one on the next page.
    const { cookie } = await deviceCookieFrom("127.0.50.2");
    const again = await send("127.0.50.2", "/sign-in", { headers: { cookie } });
    expect((again.headers["set-cookie"] ?? []).filter((line) => line.startsWith(`${DEVICE_COOKIE}=`))).toEqual([]);
  });

  it(`400 sign-ups in under 30 s make at most the address's allowance (${ALLOWANCE}), each refusal 429 with Retry-After in the caller's language`, async () => {
    const from = "127.0.60.1";
    // A scalper's tools: no cookie, a few browsers' cookies, and a cookie forged by hand.
    const devices = await Promise.all([1, 2, 3, 4].map(() => deviceCookieFrom(from)));
    const cookies = [undefined, ...devices.map((d) => d.cookie), `${DEVICE_COOKIE}=${"A".repeat(22)}.${"B".repeat(22)}`];
    const started = Date.now();
    const answers = await mapConcurrently(
      Array.from({ length: 400 }, (_, i) => i),
      8,
      (i) => {
        const cookie = cookies[i % cookies.length];
        return signUp(from, `flood-${i}@example.com`, { "accept-language": i % 2 ? "zh-CN" : "en-US", ...(cookie ? { cookie } : {}) });
      },
    );
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(30);

    const created = answers.filter((a) => a.status === 200);
    expect(created.length).toBe(ALLOWANCE);
    expect(await t.services.db.user.count({ where: { email: { startsWith: "flood-" } } })).toBe(ALLOWANCE);
    const refused = answers.map((answer, i) => ({ answer, i })).filter(({ answer }) => answer.status !== 200);
    expect(refused.map(({ answer }) => answer.status)).toEqual(refused.map(() => 429));
    for (const { answer, i } of refused) {
      const retryAfter = Number(answer.headers["retry-after"]);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= SHIPPED.SIGN_UP_DEVICE_WINDOW_SECONDS).toBe(true);
      // The sign-up limit's words, or, when the flood comes faster than the per-IP request rate,
      // the gate's (ip-gate.ts): both a 429 the caller can read.
      expect(messageOf(answer)).toMatch(
        i % 2
          ? /^((您所在网络地址|此浏览器)的注册次数过多，请 \d+ (秒|分钟)后再试。|您所在网络地址的请求过于频繁。请 \d+ 秒后再试。)$/
          : /^(Too many sign-ups from (your address|this browser)\. Try again in \d+ (seconds?|minutes?)\.|Too many requests from your address\. Try again in \d+ s\.)$/,
      );
    }
    // Both languages were answered, and the address's refusal says the hour's wait.
    const addressRefusals = refused.filter(({ answer }) => /your address|您所在网络地址/.test(messageOf(answer)));
    expect(addressRefusals.some(({ i }) => i % 2 === 0)).toBe(true);
    expect(addressRefusals.some(({ i }) => i % 2 === 1)).toBe(true);
    expect(Number(addressRefusals[0]!.answer.headers["retry-after"])).toBeGreaterThan(SHIPPED.SIGN_UP_ADDRESS_WINDOW_SECONDS - 120);

    // Each account records where it signed up from: the address, and the device when its cookie was genuine.
    const rows = await t.services.db.user.findMany({
      where: { email: { startsWith: "flood-" } },
      select: { signupAddress: true, signupDevice: true },
    });
    expect(rows.map((row) => row.signupAddress)).toEqual(rows.map(() => from));
    const genuine = new Set(devices.map((d) => d.cookie.slice(DEVICE_COOKIE.length + 1).split(".")[0]));
    for (const row of rows) expect(row.signupDevice === null || genuine.has(row.signupDevice)).toBe(true);
  });
});
