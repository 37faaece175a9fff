import { createSign, createVerify } from "node:crypto";

/**
 * Alipay's signing rules for the v2 gateway (gateway.do), written from Alipay's documentation and
 * not from alipay-sdk, so the fake Alipay checks the SDK's work instead of repeating it.
 *
 * Request (自行实现签名, 生成待签名字符串): every parameter but `sign`, parameters with an empty
 * value dropped, sorted by name in ASCII order, `name=value` joined with `&`, values as they are
 * (not URL-encoded). `sign_type` stays in: Alipay's published example signs `sign_type=RSA2`.
 */
export function requestSignString(params: Readonly<Record<string, string>>): string {
  return Object.keys(params)
    .filter((name) => name !== "sign" && params[name] !== "")
    .sort(byAscii)
    .map((name) => `${name}=${params[name]}`)
    .join("&");
}

/**
 * Async notify and return_url parameters (异步通知验签): every parameter but `sign` and
 * `sign_type`, sorted by name, `name=value` joined with `&`, values decoded.
 */
export function notifySignString(params: Readonly<Record<string, string>>): string {
  return Object.keys(params)
    .filter((name) => name !== "sign" && name !== "sign_type")
    .sort(byAscii)
    .map((name) => `${name}=${params[name]}`)
    .join("&");
}

/**
 * An answer's signed content (同步返回验签): the `<method_with_underscores>_response` value exactly
 * as it appears in the answer's text. Alipay answers `{"<key>_response":<content>,"sign":"…"}`.
 */
export function responseText(responseKey: string, content: string, sign: string): string {
  return `{${JSON.stringify(responseKey)}:${content},"sign":${JSON.stringify(sign)}}`;
}

/** RSA2 is SHA256withRSA (PKCS#1 v1.5) over the UTF-8 bytes, Base64-encoded. */
export function rsa2Sign(content: string, privateKeyPem: string): string {
  return createSign("RSA-SHA256").update(content, "utf8").sign(privateKeyPem, "base64");
}

export function rsa2Verify(content: string, signature: string, publicKeyPem: string): boolean {
  try {
    return createVerify("RSA-SHA256").update(content, "utf8").verify(publicKeyPem, signature, "base64");
  } catch {
    return false;
  }
}

/** Ordinal order of the code units: for Alipay's ASCII parameter names, ASCII order. */
function byAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
