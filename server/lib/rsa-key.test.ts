import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bodyOf, pkcs1, pkcs8, providerKeys, samePrivate, samePublic, spki } from "../testing/rsa-keys";
import { normalisePem } from "./rsa-key";

describe("keys from the env (normalisePem)", () => {
  it.each([
    ["PKCS#8 PEM", pkcs8],
    ["PKCS#1 PEM", pkcs1],
    ["PEM on one line with literal \\n", pkcs8.trim().replaceAll("\n", "\\n")],
    ["PEM with CRLF line ends", pkcs1.replaceAll("\n", "\r\n")],
    ["the bare PKCS#8 base64 body", bodyOf(pkcs8)],
    ["the bare PKCS#1 base64 body", bodyOf(pkcs1)],
  ])("reads a private key given as %s, as PKCS#8 PEM", (_, given) => {
    const pem = normalisePem(given, "private");
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PRIVATE KEY-----\n$/);
    expect(samePrivate(pem)).toBe(true);
  });

  it.each([
    ["SPKI PEM", spki],
    ["PKCS#1 PEM", providerKeys.publicKey.export({ type: "pkcs1", format: "pem" }) as string],
    ["PEM on one line with literal \\n", spki.trim().replaceAll("\n", "\\n")],
    ["the bare SPKI base64 body (Alipay's key tool, its console)", bodyOf(spki)],
  ])("reads a public key given as %s, as SPKI PEM", (_, given) => {
    const pem = normalisePem(given, "public");
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/);
    expect(samePublic(pem)).toBe(true);
  });

  it("refuses what is not a readable RSA key of that kind", () => {
    expect(normalisePem("not a key", "private")).toBeNull();
    expect(normalisePem(bodyOf(pkcs8).slice(0, 200), "private")).toBeNull();
    expect(normalisePem(spki, "private")).toBeNull();
    // A private key where Alipay's / WeChat's public key belongs: a mistake, not a public key.
    expect(normalisePem(pkcs8, "public")).toBeNull();
    expect(normalisePem(bodyOf(pkcs8), "public")).toBeNull();
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    expect(normalisePem(ec.privateKey.export({ type: "pkcs8", format: "pem" }) as string, "private")).toBeNull();
  });
});
