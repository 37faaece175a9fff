import { describe, expect, it } from "vitest";
import { serializeError } from "./logger";

describe("serializeError", () => {
  it("masks the password of a failed Redis AUTH or HELLO, and keeps other commands' arguments", () => {
    const refused = (name: string, args: string[]) =>
      Object.assign(new Error("WRONGPASS invalid username-password pair"), { command: { name, args } });
    expect(serializeError(refused("auth", ["shop", "s3cret"]))).toMatchObject({
      message: expect.stringMatching(/WRONGPASS/),
      command: { name: "auth", args: ["***"] },
    });
    expect(JSON.stringify(serializeError(refused("HELLO", ["3", "AUTH", "shop", "s3cret"])))).not.toContain("s3cret");
    expect(serializeError(refused("get", ["fs:key"]))).toMatchObject({ command: { name: "get", args: ["fs:key"] } });
  });
});
