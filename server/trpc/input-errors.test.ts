import { describe, expect, it } from "vitest";
import { z } from "zod";
import { credentialsInput, orderIdInput } from "./schemas";
import { localizedInputError } from "./input-errors";

const failure = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the input to be refused");
  return result.error;
};

describe("localizedInputError", () => {
  it("leaves English as zod wrote it", () => {
    const error = failure(credentialsInput, { email: "nope", password: "short" });
    expect(localizedInputError(error, "en")).toBe(error);
  });

  it("says our schemas' own sentences in Chinese, field by field", () => {
    const error = localizedInputError(failure(credentialsInput, { email: "nope", password: "short" }), "zh");
    expect(z.flattenError(error).fieldErrors).toEqual({ email: ["请输入有效的邮箱地址"], password: ["密码至少需要 8 个字符"] });
    expect(z.prettifyError(error)).toContain("请输入有效的邮箱地址");
  });

  it("says zod's own defaults in Chinese too, and keeps a custom sentence it has no translation for", () => {
    const zodDefault = localizedInputError(failure(orderIdInput, { orderId: -3 }), "zh");
    expect(zodDefault.issues[0]!.message).toMatch(/[\u4e00-\u9fff]/);
    const custom = localizedInputError(failure(z.object({ name: z.string().min(1, "Name the product") }), { name: "" }), "zh");
    expect(custom.issues[0]!.message).toBe("Name the product");
  });

  it("is per call: a Chinese answer leaves the next English one English", () => {
    const error = failure(credentialsInput, { email: "nope", password: "long enough" });
    localizedInputError(error, "zh");
    expect(error.issues[0]!.message).toBe("Enter a valid email address");
  });
});
