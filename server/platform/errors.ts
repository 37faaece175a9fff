/**
 * The one error type domain code throws. Its code is a tRPC error code, so routers and route
 * handlers map it in one place (server/trpc/init.ts, httpStatusOf) without knowing the domain.
 */
import { localized, type Localized } from "./i18n";

export type AppErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PRECONDITION_FAILED"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL_SERVER_ERROR"
  | "SERVICE_UNAVAILABLE";

export class AppError extends Error {
  /** For TOO_MANY_REQUESTS and SERVICE_UNAVAILABLE: sent as the Retry-After header. */
  readonly retryAfterSeconds: number | undefined;
  /** What the person reads, in each language; `message` is the English one, for logs. */
  readonly text: Localized;

  constructor(
    readonly code: AppErrorCode,
    text: string | Localized,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    const both = localized(text);
    super(both.en, { cause: options?.cause });
    this.name = "AppError";
    this.text = both;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

const HTTP_STATUS: Record<AppErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export function httpStatusOf(code: AppErrorCode): number {
  return HTTP_STATUS[code];
}
