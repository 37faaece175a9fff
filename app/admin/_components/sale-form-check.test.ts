import { describe, expect, it } from "vitest";
import { checkSaleDraft, serverFieldProblems, type SaleDraft } from "./sale-form-check";

const now = new Date("2026-12-05T12:00:00Z");
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
const good: SaleDraft = {
  productName: "Kettle",
  description: "",
  imageUrl: "",
  originalPrice: "99.00",
  price: "49.00",
  stock: "10",
  stockBuckets: "1",
  unitLimit: "1",
  startsAt: local(new Date(now.getTime() + 600_000)),
  endsAt: local(new Date(now.getTime() + 3600_000)),
  requireRealName: false,
  requireVerifiedContact: false,
  accountsCreatedBefore: "",
  minMemberLevel: "0",
  admissionRate: "0",
  arrivalOrder: "RANDOM",
  purchaseChallenge: false,
};
const check = (draft: SaleDraft, lang: "en" | "zh" = "en") =>
  checkSaleDraft(draft, { withStock: true, lang, now, startInPast: "start in past" });

describe("checkSaleDraft", () => {
  it("passes a good draft", () => {
    expect(check(good)).toEqual({});
  });

  it("names every bad field at once, a start in the past among them, one message each", () => {
    const problems = check({
      ...good,
      productName: " ",
      imageUrl: "ftp://example.com/x.png",
      price: "abc",
      stock: "0",
      startsAt: local(new Date(now.getTime() - 3600_000)),
      endsAt: local(new Date(now.getTime() - 7200_000)),
      purchaseChallenge: true,
    });
    expect(Object.keys(problems).sort()).toEqual([
      "endsAt",
      "imageUrl",
      "priceCents",
      "productName",
      "purchaseChallenge",
      "startsAt",
      "stock",
    ]);
    expect(problems.startsAt).toBe("start in past");
    expect(problems.endsAt).toBe("The sale must end after it starts");
  });

  it("says a huge price is too large, not also that it must be whole cents", () => {
    expect(check({ ...good, originalPrice: "99999999999999" }).originalPriceCents).toBe("The original price is too large");
  });

  it("speaks the operator's language", () => {
    expect(check({ ...good, productName: "" }, "zh").productName).toBe("请填写商品名称");
  });
});

describe("serverFieldProblems", () => {
  it("puts the server's first message per field on that field, translated", () => {
    expect(serverFieldProblems({ productName: ["Enter the product's name", "other"], stock: undefined }, "zh")).toEqual({
      productName: "请填写商品名称",
    });
  });
});
