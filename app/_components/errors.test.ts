import { describe, expect, it } from "vitest";
import { MESSAGES } from "../_i18n/messages";
import { errorText } from "./errors";

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
