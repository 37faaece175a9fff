import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { explainConnectionError, parseDatabaseUrl } from "./db";
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
  it("ssl=true checks the server's certificate against the system's CAs", () => {
    expect(parseDatabaseUrl("mysql://app:pw@db/shop?ssl=true").ssl).toEqual({ rejectUnauthorized: true });
  });
  it("sslca reads a private CA's PEM file and turns TLS on", () => {
    expect(parseDatabaseUrl(`mysql://db/shop?ssl=true&sslca=${encodeURIComponent(caFile)}`).ssl).toEqual({
      rejectUnauthorized: true,
      ca: PEM,
    });
    expect(parseDatabaseUrl(`mysql://db/shop?sslca=${caFile}`).ssl).toEqual({ rejectUnauthorized: true, ca: PEM });
  });
  it("sslaccept=accept_invalid_certs encrypts without checking; strict checks", () => {
    expect(parseDatabaseUrl("mysql://db/shop?ssl=true&sslaccept=accept_invalid_certs").ssl).toEqual({ rejectUnauthorized: false });
    expect(parseDatabaseUrl("mysql://db/shop?ssl=true&sslaccept=strict").ssl).toEqual({ rejectUnauthorized: true });
  });
  it("refuses bad and contradictory TLS options, naming the option", () => {
    expect(() => parseDatabaseUrl("mysql://db/shop?sslca=/nonexistent/ca.pem")).toThrow(/sslca cannot be read: .*nonexistent/);
    expect(() => parseDatabaseUrl(`mysql://db/shop?sslca=${notPem}`)).toThrow(/sslca .* holds no PEM certificate/);
    expect(() => parseDatabaseUrl("mysql://db/shop?ssl=true&sslca=")).toThrow(/sslca names no file/);
    expect(() => parseDatabaseUrl(`mysql://db/shop?ssl=false&sslca=${caFile}`)).toThrow(/sslca contradicts ssl=false/);
    expect(() => parseDatabaseUrl("mysql://db/shop?ssl=false&sslaccept=strict")).toThrow(/sslaccept contradicts ssl=false/);
    expect(() => parseDatabaseUrl(`mysql://db/shop?sslca=${caFile}&sslaccept=accept_invalid_certs`)).toThrow(
      /sslca contradicts sslaccept=accept_invalid_certs/,
    );
    expect(() => parseDatabaseUrl("mysql://db/shop?ssl=true&sslaccept=maybe")).toThrow(
      /sslaccept must be strict or accept_invalid_certs, not "maybe"/,
    );
    expect(() => parseDatabaseUrl("mysql://db/shop?ssl=true&ssl=false")).toThrow(/\?ssl more than once/);
    expect(() => parseDatabaseUrl("mysql://db/shop?sslcert=/ca.pem")).toThrow(/\?sslcert is not an option this app reads/);
  });
  it("says what a TLS refusal means for DATABASE_URL", () => {
    const plain = parseDatabaseUrl("mysql://app:pw@db:3306/shop");
    const tls = parseDatabaseUrl("mysql://app:pw@db:3306/shop?ssl=true");
    const sslDisabled = Object.assign(new Error("Trying to connect with ssl, but ssl not enabled in the server"), {
      code: "ER_SERVER_SSL_DISABLED",
      errno: 45023,
    });
    expect(explainConnectionError(sslDisabled, tls).message).toMatch(
      /asks for TLS \(\?ssl=true\), but the MySQL server at db:3306 does not offer TLS/,
    );
    const insecure = Object.assign(new Error("Connections using insecure transport are prohibited while --require_secure_transport=ON."), {
      errno: 3159,
    });
    expect(explainConnectionError(insecure, plain).message).toMatch(/requires TLS: add \?ssl=true to DATABASE_URL/);
    const denied = Object.assign(new Error("Access denied for user 'app'"), { errno: 1045 });
    expect(explainConnectionError(denied, plain).message).toMatch(/if it requires TLS .* add \?ssl=true/);
    expect(explainConnectionError(denied, tls)).toBe(denied);
    const selfSigned = Object.assign(new Error("self-signed certificate in certificate chain"), { code: "SELF_SIGNED_CERT_IN_CHAIN" });
    expect(explainConnectionError(selfSigned, tls).message).toMatch(/TLS .* certificate was not accepted; .* \?sslca=/);
    expect(explainConnectionError(selfSigned, tls).cause).toBe(selfSigned);
  });
  it("never puts the password in a message", () => {
    expect(() => parseDatabaseUrl("mysql://app:secret@db:3306/")).toThrow(/app:\*\*\*@db/);
    expect(redactedUrl("mysql://app:secret@db/shop")).toBe("mysql://app:***@db/shop");
  });
});

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const dir = mkdtempSync(path.join(tmpdir(), "db-url-"));
const caFile = path.join(dir, "ca.pem");
const notPem = path.join(dir, "key.txt");
writeFileSync(caFile, PEM);
writeFileSync(notPem, "not a certificate");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
