import { createRequire } from "node:module";
import { callTRPCProcedure, getTRPCErrorFromUnknown, getTRPCErrorShape, type AnyTRPCRouter, type TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { appRouter } from "../trpc/root";
import type { Context } from "../trpc/init";

/**
 * Every use the seckill service makes of tRPC below its adapters, in one file: the router's
 * private `_def._config` (its transformer and error formatter) and the helpers the adapters call.
 * They let the service answer as tRPC's adapters do without their per-request machinery, and are
 * not a public contract: trpc-internals.test.ts pins what is used here, so an upgrade that moves
 * them fails there, and at start the process refuses a @trpc/server it was not written against.
 */
export const TRPC_SERVER_VERSION = "11.22.1";

export function installedTrpcServerVersion(): string {
  return (createRequire(import.meta.url)("@trpc/server/package.json") as { version: string }).version;
}

export function checkTrpcServerVersion(installed = installedTrpcServerVersion()): void {
  if (installed !== TRPC_SERVER_VERSION) {
    throw new Error(
      `@trpc/server ${installed} is installed, but server/seckill-service/trpc-internals.ts was written against ${TRPC_SERVER_VERSION}: ` +
        "check its uses of tRPC's internals against the new release (trpc-internals.test.ts), then update TRPC_SERVER_VERSION.",
    );
  }
}

checkTrpcServerVersion();

const routerConfig = appRouter._def._config;

/** A request's JSON as the procedure's input, through the router's transformer (superjson). */
export function deserializeInput(json: unknown): unknown {
  return routerConfig.transformer.input.deserialize(json);
}

export type TrpcEnvelope = { result: { data: unknown } } | { error: unknown };

/**
 * An answer's body as tRPC's transformTRPCResponse makes it (the router's transformer over the
 * data or the error shape), without its generic copies of the envelope: every answer of a crowd
 * passes here.
 */
export function trpcBody(envelope: TrpcEnvelope) {
  const { serialize } = routerConfig.transformer.output;
  return "error" in envelope ? { error: serialize(envelope.error) } : { result: { data: serialize(envelope.result.data) } };
}

/** One mutation through the router's middlewares and resolver, as the adapters call it; throws what the procedure throws. */
export function callMutation(path: string, ctx: Context, input: unknown, router: AnyTRPCRouter = appRouter): Promise<unknown> {
  return callTRPCProcedure({ router, path, type: "mutation", ctx, getRawInput: async () => input, signal: undefined, batchIndex: 0 });
}

/** Whatever a call threw, as a TRPCError (a fault of ours becomes INTERNAL_SERVER_ERROR, with it as the cause). */
export function trpcErrorOf(cause: unknown): TRPCError {
  return getTRPCErrorFromUnknown(cause);
}

/** The error as the client gets it: through the router's error formatter (server/trpc/init.ts). */
export function errorShape(error: TRPCError, path: string, input: unknown, ctx: Context | undefined): unknown {
  return getTRPCErrorShape({ config: routerConfig, error, type: "mutation", path, input, ctx });
}

/** The HTTP status tRPC's adapters answer an error with. */
export function httpStatusOf(error: TRPCError): number {
  return getHTTPStatusCodeFromError(error);
}
