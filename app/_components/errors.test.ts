import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createTRPCClient, httpSubscriptionLink } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";
import { MESSAGES } from "../_i18n/messages";
import { authErrorText, errorText, payErrorText, resendErrorText, streamRefused, unaskedErrorText } from "./errors";

const t = MESSAGES.en;

describe("unaskedErrorText", () => {
  it("asks for Try again, not Buy again, when a call nobody pressed for meets a rate limit", () => {
    expect(unaskedErrorText({ message: "Rate limited", data: { httpStatus: 429 } }, t)).toBe(t.tooManyRequestsUnasked);
    expect(unaskedErrorText({ message: "", meta: { response: new Response(null, { status: 429 }) } }, MESSAGES.zh)).toBe(
      MESSAGES.zh.tooManyRequestsUnasked,
    );
    expect(t.tooManyRequestsUnasked).not.toMatch(/Buy/);
    expect(MESSAGES.zh.tooManyRequestsUnasked).not.toMatch(/抢购/);
  });

  it("says anything else as errorText does", () => {
    expect(unaskedErrorText({ message: "We are very busy", data: { httpStatus: 503 } }, t)).toBe(t.tryAgain);
  });
});

describe("errorText", () => {
  it("says too many requests for a tRPC 429 and for the gateway's plain 429", () => {
    expect(errorText({ message: "Rate limited", data: { httpStatus: 429 } }, t)).toBe(t.tooManyRequests);
    expect(errorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 429 }) } }, t)).toBe(t.tooManyRequests);
  });

  it("says try again when the shop is overloaded (503)", () => {
    expect(errorText({ message: "We are very busy", data: { httpStatus: 503 } }, t)).toBe(t.tryAgain);
  });

  it("says try again for a gateway's 502 or 504, whose body may be an HTML page", () => {
    for (const status of [502, 504])
      expect(errorText({ message: "Unexpected token '<'", meta: { response: new Response("<html>", { status }) } }, t)).toBe(t.tryAgain);
  });

  it("says the server's own sentence for a 401: it knows whether the session ended or never was", () => {
    const ended = { message: "您的登录已失效，请重新登录。", data: { httpStatus: 401, code: "UNAUTHORIZED" } };
    expect(errorText(ended, MESSAGES.zh)).toBe("您的登录已失效，请重新登录。");
    expect(errorText({ message: "Sign in to continue.", data: { httpStatus: 401, code: "UNAUTHORIZED" } }, t)).toBe("Sign in to continue.");
  });

  it("asks to sign in again for a 401 that carries no sentence of the server's", () => {
    expect(errorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 401 }) } }, MESSAGES.zh)).toBe(
      MESSAGES.zh.signInFirst,
    );
  });

  it("passes other messages through: the server wrote them for people", () => {
    expect(errorText({ message: "Sale 9 does not exist.", data: { httpStatus: 404 } }, t)).toBe("Sale 9 does not exist.");
  });
});

describe("authErrorText", () => {
  it("says the password is wrong in the server's words, never that a session ended", () => {
    const wrong = (message: string) => ({ message, data: { httpStatus: 401, code: "UNAUTHORIZED" } });
    expect(authErrorText(wrong("邮箱或密码错误。"), MESSAGES.zh)).toBe("邮箱或密码错误。");
    expect(authErrorText(wrong("Email or password is wrong."), t)).toBe("Email or password is wrong.");
    expect(authErrorText(wrong("Email or password is wrong."), t)).not.toBe(t.signInFirst);
    // Without the server's sentence the form still knows what a 401 to a sign-in means.
    expect(authErrorText({ message: "", data: { httpStatus: 401 } }, MESSAGES.zh)).toBe(MESSAGES.zh.wrongCredentials);
  });

  it("says how long the sign-in throttle makes one wait", () => {
    const throttled = {
      message: "Too many failed sign-ins",
      data: { httpStatus: 429 },
      meta: { response: new Response(null, { status: 429, headers: { "retry-after": "830" } }) },
    };
    expect(authErrorText(throttled, t)).toBe("Too many failed sign-ins. Try again in 14 minutes.");
    expect(authErrorText({ ...throttled, meta: {} }, t)).toBe("Too many failed sign-ins. Try again later.");
    expect(
      authErrorText(
        { ...throttled, meta: { response: new Response(null, { status: 429, headers: { "retry-after": "20" } }) } },
        MESSAGES.zh,
      ),
    ).toBe("登录失败次数过多，请 1 分钟后再试。");
  });

  it("says the sign-up limit's refusal in the server's words, which name who waits and how long", () => {
    const limited = (message: string) => ({
      message,
      data: { httpStatus: 429, code: "TOO_MANY_REQUESTS" },
      meta: { response: new Response(null, { status: 429, headers: { "retry-after": "3000" } }) },
    });
    expect(authErrorText(limited("此浏览器的注册次数过多，请 50 分钟后再试。"), MESSAGES.zh, "signUp")).toBe(
      "此浏览器的注册次数过多，请 50 分钟后再试。",
    );
    expect(authErrorText(limited("Too many sign-ups from your address. Try again in 50 minutes."), t, "signUp")).toBe(
      "Too many sign-ups from your address. Try again in 50 minutes.",
    );
    // A sign-in's 429 stays the throttle's sentence; a sign-up's plain 429 (no tRPC answer) errorText's.
    expect(authErrorText(limited("whatever"), t, "signIn")).toBe("Too many failed sign-ins. Try again in 50 minutes.");
    expect(authErrorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 429 }) } }, t, "signUp")).toBe(
      t.tooManyRequests,
    );
  });

  it("leaves the gateway's plain 429 and other errors to errorText", () => {
    expect(authErrorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 429 }) } }, t)).toBe(
      t.tooManyRequests,
    );
    expect(authErrorText({ message: "An account with this email already exists. Sign in instead.", data: { httpStatus: 409 } }, t)).toBe(
      "An account with this email already exists. Sign in instead.",
    );
  });
});

describe("payErrorText", () => {
  const deadline = { message: "The time to pay for order #7 has run out.", data: { httpStatus: 412, code: "PRECONDITION_FAILED" } };
  const paid = { message: "Order #7 is already paid through wechatpay.", data: { httpStatus: 409, code: "CONFLICT" } };
  const unreachable = {
    message: "We could not reach alipay just now, so nothing was changed. Please try again in a moment.",
    data: { httpStatus: 503, code: "SERVICE_UNAVAILABLE" },
  };

  it("keeps the server's own sentence in English", () => {
    for (const error of [deadline, paid, unreachable]) expect(payErrorText(error, t)).toBe(error.message);
  });

  it("says each refusal in Chinese by its code, never the server's English", () => {
    const zh = MESSAGES.zh;
    expect(payErrorText(deadline, zh)).toBe("该订单的支付时间已过。");
    expect(payErrorText(paid, zh)).toBe("该订单已无法支付：它已付款或已取消。");
    expect(payErrorText(unreachable, zh)).toBe("暂时无法连接支付机构，未做任何更改。请稍后重试。");
    expect(payErrorText({ message: "No order #7 for this account.", data: { httpStatus: 404, code: "NOT_FOUND" } }, zh)).toBe(
      "找不到该订单。",
    );
  });

  it("tells a provider that is down from a shop that is overloaded", () => {
    // The front door's 503 is no tRPC answer: no code, only the status.
    expect(payErrorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 503 }) } }, t)).toBe(t.tryAgain);
    expect(payErrorText(unreachable, t)).not.toBe(t.tryAgain);
  });

  it("leaves sessions and rate limits to errorText", () => {
    expect(payErrorText({ message: "请先登录。", data: { httpStatus: 401, code: "UNAUTHORIZED" } }, MESSAGES.zh)).toBe("请先登录。");
    expect(payErrorText({ message: "Slow down", data: { httpStatus: 429, code: "TOO_MANY_REQUESTS" } }, t)).toBe(t.tooManyRequests);
  });
});

describe("streamRefused", () => {
  /** The error a page's subscription gets from a server answering every stream with `status`, through the page's own link. */
  async function subscriptionErrorFor(status: number): Promise<unknown> {
    const server = createServer((_req, res) =>
      res.writeHead(status, { "content-type": "application/json", "retry-after": "30" }).end("{}"),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc`;
    const client = createTRPCClient<AppRouter>({ links: [httpSubscriptionLink({ url, transformer: superjson, EventSource })] });
    try {
      return await new Promise((resolve) => {
        const subscription = client.room.onStatus.subscribe(
          { saleId: 1, ticket: "t" },
          { onError: (error) => (subscription.unsubscribe(), resolve(error)) },
        );
      });
    } finally {
      server.close();
    }
  }

  it("knows a stream refused over the caps (429) from one that failed otherwise", async () => {
    expect(streamRefused((await subscriptionErrorFor(429)) as object)).toBe(true);
    expect(streamRefused((await subscriptionErrorFor(502)) as object)).toBe(false);
    expect(streamRefused(null)).toBe(false);
  });
});

describe("resendErrorText", () => {
  it("shows a resend's own 429 as the server wrote it (it says how long), and the rest as errorText", () => {
    const tooSoon = { message: "刚刚已发送过新链接，请 42 秒后再试。", data: { httpStatus: 429, code: "TOO_MANY_REQUESTS" } };
    expect(resendErrorText(tooSoon, MESSAGES.zh)).toBe("刚刚已发送过新链接，请 42 秒后再试。");
    expect(resendErrorText({ message: "", meta: { response: new Response(null, { status: 429 }) } }, t)).toBe(t.tooManyRequests);
    expect(resendErrorText({ message: "We could not send", data: { httpStatus: 503, code: "SERVICE_UNAVAILABLE" } }, t)).toBe(t.tryAgain);
  });
});
