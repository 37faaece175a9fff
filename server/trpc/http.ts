import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Services } from "../services";
import { appRouter } from "./root";
import { createContext } from "./init";

export const TRPC_ENDPOINT = "/api/trpc";

/** tRPC over HTTP (the route handler's whole job), with the services passed in. */
export function handleTrpcRequest(req: Request, services: Services): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext(services, req.headers, resHeaders),
  });
}
