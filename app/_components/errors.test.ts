import { describe, expect, it } from "vitest";
import { MESSAGES } from "../_i18n/messages";
import { authErrorText, errorText } from "./errors";

const t = MESSAGES.en;

describe("errorText", () => {
  it("says too many requests for a tRPC 429 and for the gateway's plain 429", () => {
    expect(errorText({ message: "Rate limited", data: { httpStatus: 429 } }, t)).toBe(t.tooManyRequests);
    expect(errorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 429 }) } }, t)).toBe(t.tooManyRequests);
  });

  it("says try again when the shop is overloaded (503)", () => {
    expect(errorText({ message: "We are very busy", data: { httpStatus: 503 } }, t)).toBe(t.tryAgain);
  });

  it("asks to sign in again when the session is gone (401)", () => {
    expect(errorText({ message: "Sign in to continue.", data: { httpStatus: 401 } }, MESSAGES.zh)).toBe(MESSAGES.zh.signInFirst);
  });

  it("passes other messages through: the server wrote them for people", () => {
    expect(errorText({ message: "Sale 9 does not exist.", data: { httpStatus: 404 } }, t)).toBe("Sale 9 does not exist.");
  });
});

describe("authErrorText", () => {
  it("says the password is wrong, and how long the sign-in throttle makes one wait", () => {
    expect(authErrorText({ message: "Email or password is wrong.", data: { httpStatus: 401 } }, MESSAGES.zh)).toBe(MESSAGES.zh.wrongCredentials);
    const throttled = { message: "Too many failed sign-ins", data: { httpStatus: 429 }, meta: { response: new Response(null, { status: 429, headers: { "retry-after": "830" } }) } };
    expect(authErrorText(throttled, t)).toBe("Too many failed sign-ins. Try again in 14 minutes.");
    expect(authErrorText({ ...throttled, meta: {} }, t)).toBe("Too many failed sign-ins. Try again later.");
    expect(authErrorText({ ...throttled, meta: { response: new Response(null, { status: 429, headers: { "retry-after": "20" } }) } }, MESSAGES.zh)).toBe("登录失败次数过多,请 1 分钟后再试。");
  });

  it("leaves the gateway's plain 429 and other errors to errorText", () => {
    expect(authErrorText({ message: "Unexpected token", meta: { response: new Response(null, { status: 429 }) } }, t)).toBe(t.tooManyRequests);
    expect(authErrorText({ message: "An account with this email already exists. Sign in instead.", data: { httpStatus: 409 } }, t)).toBe("An account with this email already exists. Sign in instead.");
  });
});
