import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

/**
 * An RSA key from the env as full PEM (private: PKCS#8 "PRIVATE KEY"; public: SPKI "PUBLIC
 * KEY"), or null when node:crypto cannot read it as one. Accepted: PEM with real newlines or
 * the literal `\n` a one-line .env value forces, or the bare base64 body the providers' key
 * tools print (PKCS#8 or PKCS#1 for a private key, SPKI or PKCS#1 for a public one). A private
 * key given where a public one belongs is refused, not silently turned into its public half.
 */
export function normalisePem(value: string, kind: "private" | "public"): string | null {
  const text = value.trim().replace(/\\r/g, "").replace(/\\n/g, "\n").replace(/\r\n?/g, "\n");
  let key: KeyObject;
  try {
    if (text.includes("-----BEGIN")) {
      if (kind === "public" && /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) return null;
      key = kind === "private" ? createPrivateKey(text) : createPublicKey(text);
    } else {
      const body = text.replace(/\s+/g, "");
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
      const der = Buffer.from(body, "base64");
      // node:crypto would derive a public key from a private one: refuse that mix-up instead.
      if (kind === "public" && readsAsPrivate(der)) return null;
      key = readDer(der, kind);
    }
  } catch {
    return null;
  }
  if (key.asymmetricKeyType !== "rsa") return null;
  return kind === "private"
    ? (key.export({ type: "pkcs8", format: "pem" }) as string)
    : (key.export({ type: "spki", format: "pem" }) as string);
}

function readsAsPrivate(der: Buffer): boolean {
  try {
    readDer(der, "private");
    return true;
  } catch {
    return false;
  }
}

function readDer(der: Buffer, kind: "private" | "public"): KeyObject {
  const [first, second] = kind === "private" ? (["pkcs8", "pkcs1"] as const) : (["spki", "pkcs1"] as const);
  const read = (type: typeof first | typeof second) =>
    kind === "private"
      ? createPrivateKey({ key: der, format: "der", type: type as "pkcs8" | "pkcs1" })
      : createPublicKey({ key: der, format: "der", type: type as "spki" | "pkcs1" });
  try {
    return read(first);
  } catch {
    return read(second);
  }
}
