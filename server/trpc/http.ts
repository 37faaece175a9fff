import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Services } from "../services";
import { appRouter } from "./root";
import { createContext } from "./init";
import { createLogger } from "../logger";
import type { Logger } from "pino";

// Created on first use: Next evaluates route modules at build time, before the env is complete.
let log: Logger | undefined;

export const TRPC_ENDPOINT = "/api/trpc";

/** tRPC over HTTP (the route handler's whole job), with the services passed in. */
export function handleTrpcRequest(req: Request, services: Services): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext(services, req.headers, resHeaders),
    // Client mistakes (bad input, refusals) are answers; only server faults are worth a log line.
    onError({ error, path, type }) {
      if (error.code !== "INTERNAL_SERVER_ERROR") return;
      log ??= createLogger("web");
      log.error({ err: error.cause ?? error, path, type }, "tRPC procedure failed");
    },
  });
}
