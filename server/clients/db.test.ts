import { describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "./db";

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
});
