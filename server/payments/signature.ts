import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * HMAC-SHA256 request signing in the style of Alipay and WeChat Pay: the fields, except the
 * signature itself, sorted by name, empty ones left out, joined as `name=value&…`, and signed
 * with the shared key. Values are percent-encoded in the canonical string, so no value can
 * pretend to be a field boundary ("a=1&b=2" as one value signs differently from two fields).
 */
export const SIGN_TYPE = "HMAC-SHA256";
const UNSIGNED = new Set(["sign", "sign_type"]);

export function canonicalString(fields: Readonly<Record<string, string>>): string {
  return Object.keys(fields)
    .filter((name) => !UNSIGNED.has(name) && fields[name] !== "")
    .sort()
    .map((name) => `${name}=${encodeURIComponent(fields[name]!)}`)
    .join("&");
}

export function sign(fields: Readonly<Record<string, string>>, key: string): string {
  return createHmac("sha256", key).update(canonicalString(fields), "utf8").digest("hex");
}

/** The fields with `sign_type` and `sign` added. */
export function signed(fields: Readonly<Record<string, string>>, key: string): Record<string, string> {
  return { ...fields, sign_type: SIGN_TYPE, sign: sign(fields, key) };
}

/** True when `fields` carry a valid signature by `key`; compared in constant time. */
export function verifySigned(fields: Readonly<Record<string, string>>, key: string): boolean {
  if (fields.sign_type !== SIGN_TYPE || !/^[0-9a-f]{64}$/.test(fields.sign ?? "")) return false;
  const expected = Buffer.from(sign(fields, key), "hex");
  return timingSafeEqual(expected, Buffer.from(fields.sign!, "hex"));
}
