import { describe, expect, it } from "vitest";
import { scriptCommand } from "./redis";

describe("scriptCommand", () => {
  it("names a script's command for its action in camelCase, its key count from the suffix", () => {
    expect(scriptCommand("server/seckill/issue-token-5.lua")).toEqual({ name: "issueToken", numberOfKeys: 5 });
    expect(scriptCommand("/abs/path/settle-reservations-3.lua")).toEqual({ name: "settleReservations", numberOfKeys: 3 });
    expect(scriptCommand("sign-in-attempts-1.lua")).toEqual({ name: "signInAttempts", numberOfKeys: 1 });
  });

  it("refuses a file not named <action>-<numKeys>.lua", () => {
    expect(() => scriptCommand("server/seckill/includes/check-purchase.lua")).toThrow(/not named <action>-<numKeys>\.lua/);
    expect(() => scriptCommand("server/seckill/Reserve-7.lua")).toThrow(/not named/);
  });
});
