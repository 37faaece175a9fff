import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { callTRPCProcedure } from "@trpc/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTRPCRouter, shopperProcedure, type Context } from "../trpc/init";
import { saleIdInput } from "../trpc/schemas";

/**
 * The @trpc/server patch (./README.md) as installed: pinned to its release, present in every build
 * it patches, and still doing its job. Each fails when an upgrade or an install without the patch
 * leaves tRPC's own helper in place.
 */
const PATCH_DIR = path.join(process.cwd(), "server", "patches");
const patchFile = readdirSync(PATCH_DIR).find((name) => name.startsWith("@trpc+server+") && name.endsWith(".patch"))!;
const patchedVersion = /^@trpc\+server\+(.+)\.patch$/.exec(patchFile)![1];
const packageDir = path.dirname(createRequire(import.meta.url).resolve("@trpc/server/package.json"));
/** The native spread the patch puts in tRPC's _objectSpread2, as it appears in the patched builds. */
const PATCHED_LINE = "if (null != t) e = { ...e, ...t };";

const router = createTRPCRouter({
  probe: shopperProcedure.input(saleIdInput).mutation(({ ctx, input }) => ({ userId: ctx.session.userId, saleId: input.saleId })),
});
const ctx = { session: { userId: 3, role: "SHOPPER" }, resHeaders: new Headers() } as unknown as Context;

const call = (rawInput: unknown) =>
  callTRPCProcedure({ router, path: "probe", type: "mutation", ctx, getRawInput: async () => rawInput, signal: undefined, batchIndex: 0 });

afterEach(() => vi.restoreAllMocks());

describe("the @trpc/server patch", () => {
  it("is for the installed release, which package.json pins exactly", () => {
    const installed = (JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string }).version;
    const pinned = (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { dependencies: Record<string, string> })
      .dependencies["@trpc/server"];
    expect(installed).toBe(patchedVersion);
    expect(pinned).toBe(patchedVersion);
  });

  it("is in every installed file it patches (the ESM and the CommonJS builds)", () => {
    const patched = [
      ...readFileSync(path.join(PATCH_DIR, patchFile), "utf8").matchAll(/^\+\+\+ b\/node_modules\/@trpc\/server\/(.+)$/gm),
    ].map((m) => m[1]!);
    expect(patched.length).toBeGreaterThanOrEqual(2);
    for (const file of patched) expect(readFileSync(path.join(packageDir, file), "utf8"), file).toContain(PATCHED_LINE);
  });
});

describe("a procedure call through the patched tRPC", () => {
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
