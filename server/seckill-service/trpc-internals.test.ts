import { TRPCError, transformTRPCResponse } from "@trpc/server";
import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { appRouter } from "../trpc/root";
import { createTRPCRouter, publicProcedure, type Context } from "../trpc/init";
import { saleIdInput } from "../trpc/schemas";
import {
  callMutation,
  checkTrpcServerVersion,
  deserializeInput,
  errorShape,
  httpStatusOf,
  installedTrpcServerVersion,
  trpcBody,
  trpcErrorOf,
  TRPC_SERVER_VERSION,
} from "./trpc-internals";

/**
 * The contract the seckill service holds with tRPC's internals (trpc-internals.ts), against the
 * installed @trpc/server itself: each use answers as tRPC's own adapters would.
 */
const probe = createTRPCRouter({
  echo: publicProcedure.input(saleIdInput).mutation(({ input }) => ({ saleId: input.saleId, at: new Date(0) })),
  fault: publicProcedure.mutation(() => {
    throw new Error("a table name");
  }),
});
const ctx = (lang = "en") =>
  ({ session: null, resHeaders: new Headers(), requestHeaders: new Headers({ "accept-language": lang }) }) as unknown as Context;

describe("the seckill service's uses of tRPC internals", () => {
  it("runs on the @trpc/server release it was written against, and refuses another", () => {
    expect(installedTrpcServerVersion()).toBe(TRPC_SERVER_VERSION);
    expect(() => checkTrpcServerVersion("11.23.0")).toThrow(/11\.23\.0 is installed.*written against 11\.22\.1/);
  });

  it("reads the router's transformer from _def._config: superjson both ways", () => {
    const config = appRouter._def._config;
    expect(typeof config.transformer.input.deserialize).toBe("function");
    expect(typeof config.transformer.output.serialize).toBe("function");
    expect(deserializeInput(superjson.serialize({ at: new Date(5) }))).toEqual({ at: new Date(5) });
  });

  it("answers with the body tRPC's transformTRPCResponse makes, for data and for an error shape", () => {
    const config = appRouter._def._config;
    const data = { result: { data: { status: "SOLD_OUT", at: new Date(7) } } };
    expect(trpcBody(data)).toEqual(transformTRPCResponse(config, data));
    const error = { error: { message: "no", code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400 } } };
    // Typed for its JSON-RPC form (with an id); the HTTP adapters pass the envelope without one, as here.
    expect(trpcBody(error)).toEqual(transformTRPCResponse(config, error as Parameters<typeof transformTRPCResponse>[1]));
  });

  it("calls a mutation through its input parser and resolver, resolving with the resolver's data", async () => {
    await expect(callMutation("echo", ctx(), { saleId: 4 }, probe)).resolves.toEqual({ saleId: 4, at: new Date(0) });
  });

  it("throws, not returns, a TRPCError for bad input and for an unknown path", async () => {
    await expect(callMutation("echo", ctx(), { saleId: -1 }, probe)).rejects.toSatisfy(
      (e) => e instanceof TRPCError && e.code === "BAD_REQUEST",
    );
    await expect(callMutation("nothing.here", ctx(), undefined, probe)).rejects.toSatisfy(
      (e) => e instanceof TRPCError && e.code === "NOT_FOUND",
    );
  });

  it("turns a fault of ours into INTERNAL_SERVER_ERROR with it as the cause, and keeps a TRPCError as it is", async () => {
    const fault = await callMutation("fault", ctx(), undefined, probe).catch((e: unknown) => e);
    const error = trpcErrorOf(fault);
    expect(error.code).toBe("INTERNAL_SERVER_ERROR");
    expect((error.cause as Error).message).toBe("a table name");
    const refusal = new TRPCError({ code: "TOO_MANY_REQUESTS" });
    expect(trpcErrorOf(refusal)).toBe(refusal);
  });

  it("shapes an error through the router's error formatter (_def._config.errorFormatter), in the caller's language", async () => {
    const error = trpcErrorOf(await callMutation("echo", ctx("zh"), { saleId: -1 }, probe).catch((e: unknown) => e));
    const shape = errorShape(error, "echo", { saleId: -1 }, ctx("zh")) as { message: string; code: number; data: Record<string, unknown> };
    expect(shape).toMatchObject({ code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400, path: "echo" } });
    expect(shape.message).toMatch(/^输入有误：/); // the formatter's words (server/trpc/init.ts), not tRPC's default
    expect(shape.data.fieldErrors).toHaveProperty("saleId");
    const fault = errorShape(trpcErrorOf(new Error("a table name")), "fault", undefined, undefined) as { message: string };
    expect(fault.message).toBe("Something went wrong on our side.");
  });

  it("gives each error code the HTTP status tRPC's adapters answer with", () => {
    const status = (code: TRPCError["code"]) => httpStatusOf(new TRPCError({ code }));
    expect([
      status("BAD_REQUEST"),
      status("UNAUTHORIZED"),
      status("NOT_FOUND"),
      status("METHOD_NOT_SUPPORTED"),
      status("PAYLOAD_TOO_LARGE"),
    ]).toEqual([400, 401, 404, 405, 413]);
    expect([status("PARSE_ERROR"), status("TOO_MANY_REQUESTS"), status("INTERNAL_SERVER_ERROR")]).toEqual([400, 429, 500]);
  });
});
