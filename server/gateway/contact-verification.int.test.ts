import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { startSmtpCatcher, verificationLinkIn, type SmtpCatcher } from "../testing/smtp-catcher";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { AppError } from "../platform/errors";
import { SmtpSender } from "../clients/contact-sender";
import { freePort } from "../lib/net";
import { signUp } from "./accounts";
import { resendVerification, verifyContact } from "./contact-verification";

/** Sign-ups from the test itself: the sign-up limit is off in test environments. */
const LOCAL_ORIGIN = { clientAddress: "127.0.0.1", device: null };

/**
 * Verified contacts against a real SMTP server (smtp-server on a loopback port), real MariaDB and
 * Redis: the shop's mail is read from the server and its link followed, as a shopper would.
 */

const TTL_SECONDS = 3600;
let t: TestEnvironment;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestEnvironment("contact_verification", {
    SMTP_URL: smtp.url,
    PUBLIC_BASE_URL: "https://shop.example.test",
    CONTACT_VERIFICATION_TTL_SECONDS: String(TTL_SECONDS),
  });
});
afterAll(async () => {
  await t?.cleanup();
  await smtp?.close();
});

let counter = 0;
const newEmail = (name: string) => `${name}-${Date.now().toString(36)}-${counter++}@Example.test`;

/** A new account through sign-up, its session, and the token of the link mailed to it. */
async function signedUp(name: string) {
  const email = newEmail(name);
  const since = Date.now();
  const { token: session, user } = await signUp(t.services, { email, password: "correct-horse-battery" }, LOCAL_ORIGIN);
  const mail = await smtp.waitForMail(user.email, { since });
  const link = verificationLinkIn(mail);
  return { email: user.email, userId: user.id, session, link, token: link.searchParams.get("token")!, mail };
}

const callerFor = async (session?: string) =>
  createCaller(await createContext(t.services, new Headers(session ? { authorization: `Bearer ${session}` } : {})));
const verifiedAt = async (userId: number) =>
  (await t.services.db.user.findUniqueOrThrow({ where: { id: userId }, select: { contactVerifiedAt: true } })).contactVerifiedAt;
/** The refusal's tRPC code, or "ok". */
const outcome = (call: Promise<unknown>) =>
  call.then(
    () => "ok",
    (error: unknown) => (error instanceof TRPCError || error instanceof AppError ? error.code : String(error)),
  );

describe("the mail", () => {
  it("goes to the new account's address from MAIL_FROM, with a link to this shop's /verify in both languages", async () => {
    const { mail, link, email } = await signedUp("mail");
    // Domains are case-blind (the mail path lowers them); the local part goes as the shopper typed it.
    expect(mail.to).toEqual([email.replace(/@.*$/, (domain) => domain.toLowerCase())]);
    expect(mail.from).toBe("no-reply@flash-sale.test");
    expect(mail.subject).toBe("Confirm your email · 验证您的邮箱");
    expect(`${link.origin}${link.pathname}`).toBe("https://shop.example.test/verify");
    expect(mail.text).toContain("good for 1 hour, once");
    expect(mail.text).toContain("1 小时内有效");
  });
});

describe("following the link", () => {
  it("verifies once, and auth.me says so; the same link again is refused and changes nothing", async () => {
    const a = await signedUp("once");
    const signedIn = await callerFor(a.session);
    expect(await signedIn.auth.me()).toMatchObject({ email: a.email, contactVerified: false });
    // Anyone holding the link may follow it (a phone's mail app, not signed in).
    expect(await (await callerFor()).auth.verifyContact({ token: a.token })).toEqual({ status: "VERIFIED" });
    const first = await verifiedAt(a.userId);
    expect(first).toBeInstanceOf(Date);
    expect(await signedIn.auth.me()).toMatchObject({ contactVerified: true });
    const again = await (await callerFor()).auth.verifyContact({ token: a.token }).catch((error: TRPCError) => error);
    // A caller's error carries both languages; the HTTP answer picks one (the security test reads it).
    expect(again).toMatchObject({
      code: "CONFLICT",
      cause: { text: { en: "This verification link has already been used.", zh: "该验证链接已使用过。" } },
    });
    expect(await verifiedAt(a.userId)).toEqual(first);
  });

  it("is refused once expired (the clock moved past the TTL), and nothing is spent by it", async () => {
    const a = await signedUp("expired");
    const later = new Date(Date.now() + TTL_SECONDS * 1000 + 1000);
    const refusal = await verifyContact(t.services, a.token, later).catch((error: AppError) => error);
    expect(refusal).toMatchObject({ code: "PRECONDITION_FAILED", message: "This verification link has expired. Ask for a new one." });
    expect(await verifiedAt(a.userId)).toBeNull();
    // Only the clock made it fail: at today's time the same link still works.
    expect(await outcome(verifyContact(t.services, a.token))).toBe("ok");
  });

  it("cannot verify another account: A's link with B's id, or A's link after A's address changed", async () => {
    const a = await signedUp("alice");
    const b = await signedUp("bob");
    const parts = a.token.split(".");
    parts[0] = String(b.userId);
    expect(await outcome(verifyContact(t.services, parts.join(".")))).toBe("BAD_REQUEST");
    expect(await verifiedAt(b.userId)).toBeNull();
    // A's address is now another: the link went to the old one and proves nothing about the new.
    await t.services.db.user.update({ where: { id: a.userId }, data: { email: newEmail("alice-moved").toLowerCase() } });
    expect(await outcome(verifyContact(t.services, a.token))).toBe("BAD_REQUEST");
    expect(await verifiedAt(a.userId)).toBeNull();
    // B's own link still verifies B.
    expect(await outcome(verifyContact(t.services, b.token))).toBe("ok");
  });

  it("refuses a tampered signature or expiry, then still takes the genuine link", async () => {
    const a = await signedUp("tampered");
    const parts = a.token.split(".");
    const forgedMac = [...parts.slice(0, 4), `${parts[4]![0] === "A" ? "B" : "A"}${parts[4]!.slice(1)}`].join(".");
    const laterExpiry = [parts[0], String(Number(parts[1]) + 86_400_000), ...parts.slice(2)].join(".");
    for (const forged of [forgedMac, laterExpiry]) {
      const refusal = await (await callerFor()).auth.verifyContact({ token: forged }).catch((error: TRPCError) => error);
      expect(refusal).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^This verification link is not valid\./) });
    }
    expect(await verifiedAt(a.userId)).toBeNull();
    expect(await outcome(verifyContact(t.services, a.token))).toBe("ok");
  });

  it("answers malformed input with 400 and the field's reason", async () => {
    const refusal = await (await callerFor()).auth.verifyContact({ token: "not a token" }).catch((error: TRPCError) => error);
    expect(refusal).toMatchObject({ code: "BAD_REQUEST" });
    expect(String((refusal as TRPCError).message)).toContain("open the whole link from the email");
  });

  it("lets exactly one of ten simultaneous uses of a link through", async () => {
    const a = await signedUp("race");
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => outcome(verifyContact(t.services, a.token))));
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "CONFLICT")).toHaveLength(9);
  });
});

describe("send again", () => {
  it("mails a new link once a minute, refusing the next with 429 and Retry-After, in both languages", async () => {
    const a = await signedUp("resend");
    const headers = new Headers({ authorization: `Bearer ${a.session}` });
    const ctx = await createContext(t.services, headers);
    const caller = createCaller(ctx);
    const since = Date.now();
    expect(await caller.auth.resendVerification()).toEqual({ status: "SENT", email: a.email });
    const second = verificationLinkIn(await smtp.waitForMail(a.email, { since })).searchParams.get("token")!;
    expect(second).not.toBe(a.token);
    const refusal = await caller.auth.resendVerification().catch((error: TRPCError) => error);
    expect(refusal).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      cause: { text: { zh: expect.stringMatching(/^刚刚已发送过新链接，请 (1 分钟|59 秒)后再试。$/) } },
    });
    expect(Number(ctx.resHeaders.get("retry-after"))).toBeGreaterThanOrEqual(59);
    // Either link verifies; then the other is no use, and there is nothing more to send.
    expect(await outcome(verifyContact(t.services, second))).toBe("ok");
    expect(await outcome(verifyContact(t.services, a.token))).toBe("ok"); // its own nonce: verifies nothing new
    expect(await resendVerification(t.services, a.userId)).toEqual({ status: "ALREADY_VERIFIED" });
  });

  it("sends at most five an hour, however the minutes pass", async () => {
    const a = await signedUp("hourly");
    const answers: string[] = [];
    for (let i = 0; i < 7; i++) {
      // A minute passing, for the once-a-minute counter only.
      await t.services.redis.del(`${t.env.REDIS_NAMESPACE}:contact:{resend:${a.userId}}:minute`);
      answers.push(await outcome(resendVerification(t.services, a.userId)));
    }
    expect(answers).toEqual(["ok", "ok", "ok", "ok", "ok", "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
  });

  it("needs a session", async () => {
    expect(await outcome((await callerFor()).auth.resendVerification())).toBe("UNAUTHORIZED");
  });
});

describe("a mail server that does not answer", () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let url: string;
  beforeAll(async () => {
    // Accepts connections and never greets: a hung mail server.
    silent = createServer((socket) => sockets.add(socket));
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, "127.0.0.1", resolve));
    url = `smtp://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("neither slows nor fails a sign-up; a resend fails within its timeout with 503 and counts nothing", async () => {
    const contacts = new SmtpSender(url, t.env.MAIL_FROM, { connectionMs: 500, greetingMs: 500, socketMs: 500 });
    const services = { ...t.services, contacts };
    try {
      const started = Date.now();
      const { user } = await signUp(services, { email: newEmail("hung"), password: "correct-horse-battery" }, LOCAL_ORIGIN);
      // The password hash is most of it; the mail is not waited for.
      expect(Date.now() - started).toBeLessThan(3000);
      const resendStarted = Date.now();
      const refusal = await resendVerification(services, user.id).catch((error: AppError) => error);
      expect(refusal).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 30 });
      expect(Date.now() - resendStarted).toBeLessThan(3000);
      // Its units were given back: with a working server the shopper can ask at once.
      expect(await resendVerification(t.services, user.id)).toMatchObject({ status: "SENT" });
    } finally {
      await contacts.close();
    }
  });
});
