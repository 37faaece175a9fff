import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startSystem, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { startSmtpCatcher, verificationLinkIn, type SmtpCatcher } from "../testing/smtp-catcher";

/**
 * Verified contacts over real HTTP, the whole system as npm start runs it, mailing through a real
 * SMTP server: the mailed link works once through the front door, a flood of resends sends one
 * mail and answers the rest 429 with Retry-After in the caller's language, a forged link changes
 * nothing.
 */

let t: TestEnvironment;
let smtp: SmtpCatcher;
let system: ChildHandle & { url: string };
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestEnvironment("security_contact", { SMTP_URL: smtp.url });
  system = await startSystem(t.childEnv, { DEMO_SALE: "0" });
});
afterAll(async () => {
  await system?.stop();
  await t?.cleanup();
  await smtp?.close();
});

async function mutate(path: string, input: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${system.url}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: system.url, ...headers },
    body: JSON.stringify({ json: input }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text), text };
}

let accounts = 0;
async function signUp() {
  const email = `contact-${++accounts}-${Date.now()}@example.test`;
  const since = Date.now();
  const answer = await mutate("auth.signUp", { email, password: "a-good-long-password" });
  expect(answer.status, answer.text).toBe(200);
  const { token, user } = answer.json.result.data.json as { token: string; user: { id: number } };
  const link = verificationLinkIn(await smtp.waitForMail(email, { since, timeoutMs: 20_000 }));
  return { email, userId: user.id, cookie: `fs_session=${encodeURIComponent(token)}`, link };
}

const verifiedAt = async (userId: number) => (await t.services.db.user.findUniqueOrThrow({ where: { id: userId } })).contactVerifiedAt;

describe("the mailed link, through the front door", () => {
  it("names this shop's /verify page, which answers; the token verifies once, then 409 in the reader's language", async () => {
    const a = await signUp();
    expect(a.link.origin).toBe(system.url);
    const page = await fetch(a.link);
    expect(page.status).toBe(200);
    // Opening the page does not spend the link (a mail scanner fetching it): the browser's POST does.
    expect(await verifiedAt(a.userId)).toBeNull();
    const token = a.link.searchParams.get("token")!;
    const first = await mutate("auth.verifyContact", { token });
    expect(first.status, first.text).toBe(200);
    expect(first.json.result.data.json).toEqual({ status: "VERIFIED" });
    expect(await verifiedAt(a.userId)).toBeInstanceOf(Date);
    const again = await mutate("auth.verifyContact", { token }, { "accept-language": "zh-CN" });
    expect(again.status).toBe(409);
    expect(again.json.error.json.message).toBe("该验证链接已使用过。");
  });

  it("refuses a forged link with 400 and verifies nothing", async () => {
    const a = await signUp();
    const parts = a.link.searchParams.get("token")!.split(".");
    parts[1] = String(Number(parts[1]) + 365 * 86_400_000);
    const forged = await mutate("auth.verifyContact", { token: parts.join(".") });
    expect(forged.status).toBe(400);
    expect(forged.json.error.json.message).toMatch(/^This verification link is not valid\./);
    expect(await verifiedAt(a.userId)).toBeNull();
  });
});

describe("a flood of resends", () => {
  it("sends one mail; the rest get 429 with Retry-After, in the caller's language", async () => {
    const a = await signUp();
    const before = smtp.messages.filter((message) => message.to.includes(a.email)).length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => mutate("auth.resendVerification", undefined, { cookie: a.cookie, "accept-language": "zh-CN" })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(19);
    for (const answer of refused) {
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(answer.json.error.json.message).toMatch(/^刚刚已发送过新链接，请 (1 分钟|\d+ 秒)后再试。$/);
    }
    await smtp.waitForMail(a.email, { since: Date.now() - 60_000 });
    // Give a second mail time to arrive if one were on its way.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.filter((message) => message.to.includes(a.email))).toHaveLength(before + 1);
  });

  it("refuses a caller without a session with 401", async () => {
    const answer = await mutate("auth.resendVerification", undefined);
    expect(answer.status).toBe(401);
  });
});
