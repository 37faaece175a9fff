import { callTRPCProcedure } from "@trpc/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTRPCRouter, shopperProcedure, type Context } from "./init";
import { saleIdInput } from "./schemas";

const router = createTRPCRouter({
  probe: shopperProcedure.input(saleIdInput).mutation(({ ctx, input }) => ({ userId: ctx.session.userId, saleId: input.saleId })),
});
const ctx = { session: { userId: 3, role: "SHOPPER" }, resHeaders: new Headers() } as unknown as Context;

const call = (rawInput: unknown) =>
  callTRPCProcedure({ router, path: "probe", type: "mutation", ctx, getRawInput: async () => rawInput, signal: undefined, batchIndex: 0 });

afterEach(() => vi.restoreAllMocks());

describe("a procedure call through tRPC (patched: server/patches/README.md)", () => {
  it("copies the call's options at each middleware level with native spreads, still handing each level the context and input", async () => {
    const descriptorCopies = vi.spyOn(Object, "getOwnPropertyDescriptors");
    const data = await call({ saleId: 7 });
    const copies = descriptorCopies.mock.calls.length; // read before expect(), which copies descriptors itself
    expect(data).toEqual({ userId: 3, saleId: 7 });
    expect(copies).toBe(0);
  });

  it("still refuses an input its schema rejects", async () => {
    await expect(call({ saleId: -1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
