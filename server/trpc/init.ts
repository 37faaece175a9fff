/**
 * tRPC wiring, in order: 1. context  2. init with the error formatter  3. procedures.
 * Routers (./routers) stay thin: validate input, call one domain function, map the result.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { credentialFrom, verifySession, type HeaderReader, type Session } from "../gateway/session";
import { SESSION_ENDED_MESSAGE } from "../gateway/revocation";
import { PASSED_GATE, type PendingGate } from "../gateway/ip-gate";
import { langOf, type Lang, type Localized } from "../platform/i18n";
import { localizedInputError } from "./input-errors";
import { sentence } from "../platform/sentences/sentence";

// 1. Context ------------------------------------------------------------------------------------
export interface Context {
  services: Services;
  session: Session | null;
  /** The caller's credential was genuine, but its session was revoked (sign-out elsewhere, demotion, …). */
  sessionEnded: boolean;
  /** Response headers the procedure may set (the session cookie). */
  resHeaders: Headers;
  /** The browser reached us over HTTPS (directly or through a proxy that says so). */
  https: boolean;
  /** The front door's per-IP verdict, possibly still pending: the token step awaits it with its token script. */
  ipGate: PendingGate;
  /** The caller's address as the front door resolved it (server/gateway/client-ip.ts); set by Next's tRPC handler. */
  clientAddress?: string;
  /** The caller's User-Agent, for the payment flow to offer (a phone's or a desktop's). */
  userAgent: string | null;
  /** The request's headers, for its language (server/platform/i18n.ts langOf), read only when an error is answered. */
  requestHeaders: HeaderReader;
}

/** The inner context: what tests pass to `createCaller` directly. */
export async function createContext(
  services: Services,
  reqHeaders: HeaderReader,
  resHeaders = new Headers(),
  ipGate = PASSED_GATE,
): Promise<Context> {
  const credential = credentialFrom(reqHeaders);
  const verified = credential ? await verifySession(credential, services.env.SESSION_SECRET) : null;
  // The revocation check is a lookup in memory (server/gateway/revocation.ts), no Redis call.
  const sessionEnded = verified !== null && services.sessions.hasEnded(verified);
  const session = sessionEnded ? null : verified;
  const https = reqHeaders.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
  return {
    services,
    session,
    sessionEnded,
    resHeaders,
    https,
    ipGate,
    userAgent: reqHeaders.get("user-agent"),
    requestHeaders: reqHeaders,
  };
}

// 2. Init -----------------------------------------------------------------------------------------
/**
 * Stack traces and the text of unexpected errors (a Prisma message names tables and queries, a
 * stack absolute paths) reach a client only on a developer's machine. tRPC's own default shows
 * stacks whenever NODE_ENV is not "production" (a test run, a process started without it).
 */
const isDev = process.env.NODE_ENV === "development";
/** What a client reads for a fault of ours, unless on a developer's machine. */
export const UNEXPECTED_ERROR_MESSAGE: Localized = sentence((s) => s.trpc.unexpectedError);
const INVALID_INPUT: Localized = sentence((s) => s.trpc.invalidInput);

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  isDev,
  // Server-sent events (room.onStatus, seckill.onResult) stay alive through idle proxies: a ping
  // every 15 s, and the browser reconnects if it hears nothing for 30 s.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 30_000 } },
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    const lang: Lang = ctx ? langOf(ctx.requestHeaders) : "en";
    // AppErrors are written for the client; anything else is a fault whose text is for our logs.
    const unexpected = error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof AppError);
    const { stack, ...data } = shape.data;
    return {
      ...shape,
      message:
        cause instanceof ZodError
          ? `${INVALID_INPUT[lang]}${z.prettifyError(localizedInputError(cause, lang))}`
          : cause instanceof AppError
            ? cause.text[lang]
            : unexpected && !isDev
              ? UNEXPECTED_ERROR_MESSAGE[lang]
              : shape.message,
      data: {
        ...data,
        ...(isDev && stack !== undefined ? { stack } : {}),
        // Field-by-field reasons for bad input, so a form can point at the field.
        fieldErrors: cause instanceof ZodError ? z.flattenError(localizedInputError(cause, lang)).fieldErrors : null,
      },
    };
  },
});

/**
 * A domain error as the tRPC error it is answered with; input a domain function found bad once
 * merged with what is stored (a partial edit) is bad input too. Anything else stays as it is (a 500).
 */
function trpcErrorOf(cause: unknown): unknown {
  if (cause instanceof AppError) return new TRPCError({ code: cause.code, message: cause.message, cause });
  if (cause instanceof ZodError) return new TRPCError({ code: "BAD_REQUEST", message: cause.message, cause });
  return cause;
}

/**
 * Domain errors become tRPC errors here, in one place; anything else stays a 500. A
 * subscription's errors come while it streams, after the procedure returned: its stream is
 * wrapped so they are mapped too (a reservation not the caller's is a 404, not a logged 500).
 */
function withAppErrorsMapped<TResult extends { ok: true; data: unknown } | { ok: false; error: TRPCError }>(
  result: TResult,
  resHeaders: Headers,
  type: string,
): TResult {
  if (!result.ok && (result.error.cause instanceof AppError || result.error.cause instanceof ZodError)) {
    const cause = result.error.cause;
    if (cause instanceof AppError && cause.retryAfterSeconds !== undefined) resHeaders.set("retry-after", String(cause.retryAfterSeconds));
    throw trpcErrorOf(cause);
  }
  if (result.ok && type === "subscription" && isAsyncIterable(result.data)) return { ...result, data: appErrorsMappedIn(result.data) };
  return result;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === "function";
}

async function* appErrorsMappedIn<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (cause) {
    throw trpcErrorOf(cause);
  }
}

const SIGN_IN_FIRST: Localized = sentence((s) => s.common.signInToContinue);
const ADMINS_ONLY: Localized = sentence((s) => s.trpc.adminsOnly);

// 3. Procedures -----------------------------------------------------------------------------------
export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(async ({ ctx, next, type }) => withAppErrorsMapped(await next(), ctx.resHeaders, type));

/**
 * The session check and the error mapping in one middleware, not publicProcedure's plus one more:
 * tRPC copies the call's options at every middleware level, so each level costs every purchase.
 */
export const shopperProcedure = t.procedure.use(async ({ ctx, next, type }) => {
  if (!ctx.session) throw trpcErrorOf(new AppError("UNAUTHORIZED", ctx.sessionEnded ? SESSION_ENDED_MESSAGE : SIGN_IN_FIRST));
  return withAppErrorsMapped(await next({ ctx: { session: ctx.session } }), ctx.resHeaders, type);
});

export const adminProcedure = shopperProcedure.use(({ ctx, next }) => {
  if (ctx.session.role !== "ADMIN") throw trpcErrorOf(new AppError("FORBIDDEN", ADMINS_ONLY));
  return next();
});
