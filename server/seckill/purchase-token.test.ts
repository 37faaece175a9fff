import { describe, expect, it } from "vitest";
import { carriedSpanOf, isPurchaseTokenFor, newPurchaseToken, PURCHASE_TOKEN_PATTERN } from "./purchase-token";
import { FORGED_PURCHASE_TOKEN } from "../testing/tokens";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const owner = { saleId: 7, userId: 42 };

describe("purchase tokens", () => {
  it("are well-formed, different each time, and genuine for their shopper and sale", () => {
    const [a, b] = [newPurchaseToken(SECRET, owner), newPurchaseToken(SECRET, owner)];
    expect(a).toMatch(PURCHASE_TOKEN_PATTERN);
    expect(a).not.toBe(b);
    expect(isPurchaseTokenFor(SECRET, owner, a)).toBe(true);
    expect(isPurchaseTokenFor(SECRET, owner, b)).toBe(true);
  });

  it("do not serve another shopper, another sale, or another secret", () => {
    const token = newPurchaseToken(SECRET, owner);
    expect(isPurchaseTokenFor(SECRET, { ...owner, userId: 43 }, token)).toBe(false);
    expect(isPurchaseTokenFor(SECRET, { ...owner, saleId: 8 }, token)).toBe(false);
    expect(isPurchaseTokenFor(`${SECRET}-rotated`, owner, token)).toBe(false);
  });

  it("refuse a forged or tampered token", () => {
    const token = newPurchaseToken(SECRET, owner);
    const [nonce, tag] = token.split(".") as [string, string];
    const flipped = (text: string) => (text[0] === "A" ? "B" : "A") + text.slice(1);
    expect(isPurchaseTokenFor(SECRET, owner, `${flipped(nonce)}.${tag}`)).toBe(false);
    expect(isPurchaseTokenFor(SECRET, owner, `${nonce}.${flipped(tag)}`)).toBe(false);
    expect(isPurchaseTokenFor(SECRET, owner, FORGED_PURCHASE_TOKEN)).toBe(false);
    expect(isPurchaseTokenFor(SECRET, owner, nonce)).toBe(false);
    expect(isPurchaseTokenFor(SECRET, owner, `${nonce}.`)).toBe(false);
  });

  it("pattern: a 22-character nonce and a 22-character MAC, base64url, nothing else", () => {
    expect(FORGED_PURCHASE_TOKEN).toMatch(PURCHASE_TOKEN_PATTERN);
    expect("A".repeat(22)).not.toMatch(PURCHASE_TOKEN_PATTERN);
    expect("A".repeat(22) + "." + "A".repeat(21)).not.toMatch(PURCHASE_TOKEN_PATTERN);
    expect("A".repeat(22) + "." + "A".repeat(21) + "=").not.toMatch(PURCHASE_TOKEN_PATTERN);
  });
});

describe("a token carrying the token step's span", () => {
  const carried = "0af7651916cd43dd8448eb211c80319c" + "b7ad6b7169203331";
  it("is well formed and genuine, and gives the span back", () => {
    const token = newPurchaseToken(SECRET, owner, carried);
    expect(token).toMatch(PURCHASE_TOKEN_PATTERN);
    expect(isPurchaseTokenFor(SECRET, owner, token)).toBe(true);
    expect(carriedSpanOf(token)).toBe(carried);
    expect(carriedSpanOf(newPurchaseToken(SECRET, owner))).toBeUndefined();
  });
  it("is refused once its span is changed: the MAC covers it", () => {
    const token = newPurchaseToken(SECRET, owner, carried);
    const otherSpan = token.replace(carried, "f".repeat(48));
    expect(otherSpan).toMatch(PURCHASE_TOKEN_PATTERN);
    expect(isPurchaseTokenFor(SECRET, owner, otherSpan)).toBe(false);
  });
});
