import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldMessageIn, isImageUrl, newSaleInput, saleEditInput, START_GRACE_MS, startIsInPast, stockAdjustmentInput } from "./sale-form";
import { readIdField, searchMessageIn, ORDER_NUMBER_INVALID, orderSearchInput } from "./order-search";

const valid = {
  productName: "Lantern",
  description: "",
  originalPriceCents: 2000,
  priceCents: 990,
  stock: 100,
  unitLimit: 1,
  startsAt: "2026-12-01T10:00:00Z",
  endsAt: "2026-12-01T11:00:00Z",
  requireRealName: true,
  minMemberLevel: 2,
};

const fieldErrors = (result: { success: boolean; error?: z.ZodError }) => (result.error ? z.flattenError(result.error).fieldErrors : {});

describe("sale form rules", () => {
  it("accepts a sensible sale and reads the dates", () => {
    const parsed = newSaleInput.parse(valid);
    expect(parsed.startsAt).toEqual(new Date("2026-12-01T10:00:00Z"));
    expect(parsed).toMatchObject({ requireRealName: true, minMemberLevel: 2 });
  });

  it("points at the field that is wrong", () => {
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, endsAt: valid.startsAt }))).toEqual({
      endsAt: ["The sale must end after it starts"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, priceCents: 5000 }))).toEqual({
      priceCents: ["The sale price cannot be above the original price"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stock: 0 }))).toEqual({ stock: ["Stock must be at least 1"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, productName: "  " }))).toEqual({ productName: ["Enter the product's name"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, unitLimit: 0 }))).toEqual({ unitLimit: ["Allow at least 1 unit per shopper"] });
  });

  it("takes 1 to 64 stock parts (buckets), 1 when not given, never more parts than units", () => {
    expect(newSaleInput.parse(valid).stockBuckets).toBe(1);
    expect(newSaleInput.parse({ ...valid, requireRealName: false, stockBuckets: 64 }).stockBuckets).toBe(64);
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, requireRealName: false, stockBuckets: 0 }))).toEqual({
      stockBuckets: ["At least 1 part"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, requireRealName: false, stockBuckets: 65 }))).toEqual({
      stockBuckets: ["At most 64 parts"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, requireRealName: false, stockBuckets: 2.5 }))).toEqual({
      stockBuckets: ["Whole parts only"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, requireRealName: false, stock: 3, stockBuckets: 4 }))).toEqual({
      stockBuckets: ["No more parts than units"],
    });
  });

  it("keeps a real-name sale in one part, so one person's accounts meet one count", () => {
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stockBuckets: 2 }))).toEqual({
      stockBuckets: ["A real-name sale keeps its stock in 1 part, so one person's accounts share one limit"],
    });
  });

  it("reads the newest accounts' moment, empty (null) for any account, and leaves the email rule to the shop's default", () => {
    const parsed = newSaleInput.parse({ ...valid, accountsCreatedBefore: "2026-11-30T00:00:00Z" });
    expect(parsed.accountsCreatedBefore).toEqual(new Date("2026-11-30T00:00:00Z"));
    expect(parsed.requireVerifiedContact).toBeUndefined();
    expect(newSaleInput.parse({ ...valid, accountsCreatedBefore: null }).accountsCreatedBefore).toBeNull();
    expect(newSaleInput.parse(valid).accountsCreatedBefore).toBeNull();
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, accountsCreatedBefore: "soon" }))).toEqual({
      accountsCreatedBefore: ["Enter a valid moment for the newest accounts allowed, or leave it empty"],
    });
    expect(newSaleInput.parse({ ...valid, requireVerifiedContact: true }).requireVerifiedContact).toBe(true);
  });

  it("a waiting room admits 0 (none) to 1,000,000 whole places per second, random draw by default", () => {
    expect(newSaleInput.parse(valid)).toMatchObject({ admissionRate: 0, arrivalOrder: "RANDOM", purchaseChallenge: false });
    expect(newSaleInput.parse({ ...valid, admissionRate: 1_000_000, arrivalOrder: "ARRIVAL", purchaseChallenge: true })).toMatchObject({
      admissionRate: 1_000_000,
      arrivalOrder: "ARRIVAL",
      purchaseChallenge: true,
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, admissionRate: -1 }))).toEqual({
      admissionRate: ["The admission rate cannot be negative (0 = no waiting room)"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, admissionRate: 1_000_001 }))).toEqual({
      admissionRate: ["At most 1,000,000 places per second"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, admissionRate: 2.5 }))).toEqual({
      admissionRate: ["The admission rate must be a whole number of places per second"],
    });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, arrivalOrder: "LOTTERY" }))).toEqual({
      arrivalOrder: ["Choose how early arrivals are ordered"],
    });
  });

  it("refuses the challenge without a waiting room, on a new sale and on an edit", () => {
    const message = "The proof-of-work challenge needs a waiting room: set an admission rate above 0, or turn the challenge off";
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, purchaseChallenge: true }))).toEqual({ purchaseChallenge: [message] });
    const { stock: _stock, ...edit } = valid;
    expect(fieldErrors(saleEditInput.safeParse({ ...edit, saleId: 3, admissionRate: 0, purchaseChallenge: true }))).toEqual({
      purchaseChallenge: [message],
    });
    expect(saleEditInput.safeParse({ ...edit, saleId: 3, admissionRate: 10, purchaseChallenge: true }).success).toBe(true);
    expect(fieldMessageIn("zh", message)).toBe("人机验证需要排队室：请把放行速率设为大于 0，或关闭人机验证");
  });

  it("an edit gives only the fields it names: nothing defaults, so nothing left out is reset", () => {
    expect(saleEditInput.parse({ saleId: 3, priceCents: 100 })).toEqual({ saleId: 3, priceCents: 100 });
    expect(saleEditInput.safeParse({ saleId: 3, purchaseChallenge: true }).success).toBe(true);
    expect(fieldErrors(saleEditInput.safeParse({ saleId: 3, admissionRate: -1 }))).toEqual({
      admissionRate: ["The admission rate cannot be negative (0 = no waiting room)"],
    });
  });

  it("every field message has its Chinese, found from the English zod carries", () => {
    expect(fieldMessageIn("zh", "The sale must end after it starts")).toBe("结束时间必须晚于开始时间");
    expect(fieldMessageIn("zh", "At most 64 parts")).toBe("最多 64 份");
    expect(fieldMessageIn("en", "Stock must be at least 1")).toBe("Stock must be at least 1");
    expect(fieldMessageIn("zh", "something else")).toBe("something else");
    const result = newSaleInput.safeParse({
      ...valid,
      productName: "",
      stock: Number.NaN,
      unitLimit: 0,
      imageUrl: "ftp://x",
      admissionRate: -1,
      arrivalOrder: "X",
    });
    for (const messages of Object.values(fieldErrors(result)) as Array<string[] | undefined>) {
      for (const message of messages ?? []) expect(fieldMessageIn("zh", message), message).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("an image is a path on this site or an https URL, empty for none", () => {
    expect(newSaleInput.parse({ ...valid, imageUrl: "/products/kettle.svg" }).imageUrl).toBe("/products/kettle.svg");
    expect(newSaleInput.parse({ ...valid, imageUrl: "https://cdn.example.com/a.png" }).imageUrl).toBe("https://cdn.example.com/a.png");
    expect(newSaleInput.parse({ ...valid, imageUrl: "  " }).imageUrl).toBeNull();
    expect(newSaleInput.parse(valid).imageUrl).toBeNull();
    for (const bad of ["http://example.com/a.png", "//evil.example/a.png", "javascript:alert(1)", "kettle.png", "/a b.png"]) {
      expect(isImageUrl(bad), bad).toBe(false);
      expect(fieldErrors(newSaleInput.safeParse({ ...valid, imageUrl: bad })), bad).toEqual({
        imageUrl: ["Use a path on this site (starting with /) or an https:// address"],
      });
    }
  });

  it("a start in the past is refused, unless an edit keeps the start the sale already has", () => {
    const now = new Date("2026-12-01T10:00:00Z");
    expect(startIsInPast(new Date(now.getTime() + 1000), now)).toBe(false);
    expect(startIsInPast(new Date(now.getTime() - START_GRACE_MS + 1000), now)).toBe(false);
    expect(startIsInPast(new Date(now.getTime() - START_GRACE_MS - 1000), now)).toBe(true);
    const opened = new Date("2026-12-01T09:00:00Z");
    expect(startIsInPast(opened, now, opened)).toBe(false);
    expect(startIsInPast(new Date("2026-12-01T09:30:00Z"), now, opened)).toBe(true);
  });

  it("edits carry no stock (that goes through the ledger) but the same rules", () => {
    const { stock: _stock, ...edit } = valid;
    expect(saleEditInput.safeParse({ ...edit, saleId: 3 }).success).toBe(true);
    expect(fieldErrors(saleEditInput.safeParse({ ...edit, saleId: 3, minMemberLevel: -1 }))).toEqual({
      minMemberLevel: ["Member levels start at 0"],
    });
  });

  it("a stock change is a non-zero whole number of units", () => {
    expect(stockAdjustmentInput.safeParse({ saleId: 1, delta: -5 }).success).toBe(true);
    expect(fieldErrors(stockAdjustmentInput.safeParse({ saleId: 1, delta: 0 }))).toEqual({ delta: ["Enter a change other than 0"] });
    expect(fieldErrors(stockAdjustmentInput.safeParse({ saleId: 1, delta: 1.5 }))).toEqual({ delta: ["Whole units only"] });
  });
});

describe("order search fields", () => {
  it("reads digits as a number, empty as any, anything else as an error", () => {
    expect(readIdField("")).toEqual({ ok: true, value: undefined });
    expect(readIdField(" 42 ")).toEqual({ ok: true, value: 42 });
    expect(readIdField("#42")).toEqual({ ok: true, value: 42 });
    for (const bad of ["abc", "4a", "0", "-1", "1.5", "99999999999"]) expect(readIdField(bad), bad).toEqual({ ok: false });
  });

  it("the procedure refuses a bad order number with a field message in both languages, and pages within bounds", () => {
    const bad = orderSearchInput.safeParse({ orderId: 0 });
    expect(fieldErrors(bad)).toEqual({ orderId: [ORDER_NUMBER_INVALID.en] });
    expect(searchMessageIn("zh", ORDER_NUMBER_INVALID.en)).toBe(ORDER_NUMBER_INVALID.zh);
    expect(orderSearchInput.parse({})).toMatchObject({ page: 1, pageSize: 50 });
    expect(orderSearchInput.safeParse({ pageSize: 1000 }).success).toBe(false);
    expect(orderSearchInput.safeParse({ page: 0 }).success).toBe(false);
  });
});
