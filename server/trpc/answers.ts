import type { Logger } from "pino";
import type { TRPCError } from "@trpc/server";
import type { BrowserRefusal } from "../gateway/browser-guard";
import { createLogger } from "../platform/logger";
import type { Lang } from "../platform/i18n";
import { refusalBody } from "../platform/refusal-body";

/** What both tRPC front doors, Next's handler (./http.ts) and the seckill service, answer alike. */

// Created on first use: Next evaluates route modules at build time, before the env is complete.
let log: Logger | undefined;

/** Client mistakes (bad input, refusals) are answers; only server faults are worth a log line. */
export function logServerFaults({ error, path, type }: { error: TRPCError; path: string | undefined; type: string }) {
  if (error.code !== "INTERNAL_SERVER_ERROR") return;
  log ??= createLogger("web");
  log.error({ err: error.cause ?? error, path, type }, "tRPC procedure failed");
}

/** A browser-guard refusal as the JSON body the client reads (tRPC's envelope for a tRPC call). */
export function browserRefusalBody(refusal: BrowserRefusal, lang: Lang, pathname: string, searchParams: URLSearchParams | null) {
  return refusalBody(pathname, searchParams, { code: refusal.code, httpStatus: refusal.status, message: refusal.text[lang] });
}
