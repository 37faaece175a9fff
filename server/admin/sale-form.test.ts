import { describe, expect, it } from "vitest";
import { z } from "zod";
import { newSaleInput, saleEditInput, stockAdjustmentInput } from "./sale-form";

const valid = {
  productName: "Lantern",
  description: "",
  originalPriceCents: 2000,
  priceCents: 990,
  stock: 100,
  perUserLimit: 1,
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
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, endsAt: valid.startsAt }))).toEqual({ endsAt: ["The sale must end after it starts"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, priceCents: 5000 }))).toEqual({ priceCents: ["The sale price cannot be above the original price"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stock: 0 }))).toEqual({ stock: ["Stock must be at least 1"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, productName: "  " }))).toEqual({ productName: ["Enter the product's name"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, perUserLimit: 0 }))).toEqual({ perUserLimit: ["Allow at least 1 unit per shopper"] });
  });

  it("takes 1 to 64 stock buckets, 1 when not given, never more buckets than units", () => {
    expect(newSaleInput.parse(valid).stockBuckets).toBe(1);
    expect(newSaleInput.parse({ ...valid, stockBuckets: 64 }).stockBuckets).toBe(64);
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stockBuckets: 0 }))).toEqual({ stockBuckets: ["At least 1 stock bucket"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stockBuckets: 65 }))).toEqual({ stockBuckets: ["At most 64 stock buckets"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stockBuckets: 2.5 }))).toEqual({ stockBuckets: ["Whole buckets only"] });
    expect(fieldErrors(newSaleInput.safeParse({ ...valid, stock: 3, stockBuckets: 4 }))).toEqual({ stockBuckets: ["No more stock buckets than units"] });
  });

  it("edits carry no stock (that goes through the ledger) but the same rules", () => {
    const { stock: _stock, ...edit } = valid;
    expect(saleEditInput.safeParse({ ...edit, saleId: 3 }).success).toBe(true);
    expect(fieldErrors(saleEditInput.safeParse({ ...edit, saleId: 3, minMemberLevel: -1 }))).toEqual({ minMemberLevel: ["Member levels start at 0"] });
  });

  it("a stock change is a non-zero whole number of units", () => {
    expect(stockAdjustmentInput.safeParse({ saleId: 1, delta: -5 }).success).toBe(true);
    expect(fieldErrors(stockAdjustmentInput.safeParse({ saleId: 1, delta: 0 }))).toEqual({ delta: ["Enter a change other than 0"] });
    expect(fieldErrors(stockAdjustmentInput.safeParse({ saleId: 1, delta: 1.5 }))).toEqual({ delta: ["Whole units only"] });
  });
});
