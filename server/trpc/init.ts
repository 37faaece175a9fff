/**
 * tRPC wiring, in order: 1. context  2. init with the error formatter  3. procedures.
 * Routers (./routers) stay thin: validate input, call one domain function, map the result.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Services } from "../services";
import { AppError } from "../errors";
import { credentialFrom, verifySession, type HeaderReader, type Session } from "../gateway/session";
import { PASSED_GATE, type PendingGate } from "../gateway/ip-gate";

// 1. Context ------------------------------------------------------------------------------------
export interface Context {
  services: Services;
  session: Session | null;
  /** Response headers the procedure may set (the session cookie). */
  resHeaders: Headers;
  /** The browser reached us over HTTPS (directly or through a proxy that says so). */
  https: boolean;
  /** The front door's per-IP verdict, possibly still pending: the token step awaits it with its token script. */
  ipGate: PendingGate;
  /** The caller's address as the front door resolved it (server/gateway/client-ip.ts); set by Next's tRPC handler. */
  clientAddress?: string;
}

/** The inner context: what tests pass to `createCaller` directly. */
export async function createContext(services: Services, reqHeaders: HeaderReader, resHeaders = new Headers(), ipGate = PASSED_GATE): Promise<Context> {
  const credential = credentialFrom(reqHeaders);
  const session = credential ? await verifySession(credential, services.env.SESSION_SECRET) : null;
  const https = reqHeaders.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
  return { services, session, resHeaders, https, ipGate };
}

// 2. Init -----------------------------------------------------------------------------------------
/**
 * Stack traces and the text of unexpected errors (a Prisma message names tables and queries, a
 * stack absolute paths) reach a client only on a developer's machine. tRPC's own default shows
 * stacks whenever NODE_ENV is not "production" (a test run, a process started without it).
 */
const isDev = process.env.NODE_ENV === "development";
const UNEXPECTED_ERROR_MESSAGE = "Something went wrong on our side.";

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  isDev,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // AppErrors are written for the client; anything else is a fault whose text is for our logs.
    const unexpected = error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof AppError);
    const { stack, ...data } = shape.data;
    return {
      ...shape,
      message: cause instanceof ZodError ? `Invalid input: ${z.prettifyError(cause)}` : unexpected && !isDev ? UNEXPECTED_ERROR_MESSAGE : shape.message,
      data: {
        ...data,
        ...(isDev && stack !== undefined ? { stack } : {}),
        // Field-by-field reasons for bad input, so a form can point at the field.
        fieldErrors: cause instanceof ZodError ? z.flattenError(cause).fieldErrors : null,
      },
    };
  },
});

/** Domain errors become tRPC errors here, in one place; anything else stays a 500. */
function withAppErrorsMapped<TResult extends { ok: true } | { ok: false; error: TRPCError }>(result: TResult, resHeaders: Headers): TResult {
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    if (cause.retryAfterSeconds !== undefined) resHeaders.set("retry-after", String(cause.retryAfterSeconds));
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
}

// 3. Procedures -----------------------------------------------------------------------------------
export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(async ({ ctx, next }) => withAppErrorsMapped(await next(), ctx.resHeaders));

/**
 * The session check and the error mapping in one middleware, not publicProcedure's plus one more:
 * tRPC copies the call's options at every middleware level, the largest part of its cost on the
 * purchase path (bench/README.md, profile notes).
 */
export const shopperProcedure = t.procedure.use(async ({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return withAppErrorsMapped(await next({ ctx: { session: ctx.session } }), ctx.resHeaders);
});

export const adminProcedure = shopperProcedure.use(({ ctx, next }) => {
  if (ctx.session.role !== "ADMIN") throw new TRPCError({ code: "FORBIDDEN", message: "Admins only." });
  return next();
});
