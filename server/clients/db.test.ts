import { describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "./db";
import { redactedUrl } from "./redacted-url";

describe("parseDatabaseUrl", () => {
  it("reads Prisma's mysql:// form", () => {
    expect(parseDatabaseUrl("mysql://app:p%40ss@db.internal:3307/shop")).toEqual({
      host: "db.internal",
      port: 3307,
      user: "app",
      password: "p@ss",
      database: "shop",
    });
  });
  it("defaults the port and user", () => {
    expect(parseDatabaseUrl("mysql://127.0.0.1/test")).toMatchObject({ port: 3306, user: "root", password: "" });
  });
  it("insists on a database name", () => {
    expect(() => parseDatabaseUrl("mysql://127.0.0.1:3306/")).toThrow(/names no database/);
  });
  it("reads MySQL 8's and managed servers' options, and refuses any other", () => {
    expect(parseDatabaseUrl("mysql://app:pw@db:3306/shop?allowPublicKeyRetrieval=true&ssl=true")).toMatchObject({
      allowPublicKeyRetrieval: true,
      ssl: { rejectUnauthorized: true },
    });
    expect(parseDatabaseUrl("mysql://app:pw@db:3306/shop?ssl=false")).not.toHaveProperty("ssl");
    expect(() => parseDatabaseUrl("mysql://db/shop?ssl=yes")).toThrow(/ssl must be true or false/);
    expect(() => parseDatabaseUrl("mysql://db/shop?connection_limit=5")).toThrow(/\?connection_limit is not an option this app reads/);
  });
  it("never puts the password in a message", () => {
    expect(() => parseDatabaseUrl("mysql://app:secret@db:3306/")).toThrow(/app:\*\*\*@db/);
    expect(redactedUrl("mysql://app:secret@db/shop")).toBe("mysql://app:***@db/shop");
  });
});
