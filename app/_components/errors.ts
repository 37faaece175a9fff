import { PAY_ERROR_CODES, type Messages, type PayErrorCode } from "../_i18n/messages";

/** The parts of a tRPC client error we read (TRPCClientErrorLike is not typed as an Error). */
interface CallError {
  message: string;
  data?: { httpStatus?: number; code?: string } | null;
  meta?: Record<string, unknown>;
}

/**
 * What a failed call means to a shopper. Overload and rate limits get the shop's own words (the
 * gateway's 429 is not even a tRPC answer, only its HTTP status tells); other errors carry a
 * message the server wrote for people, in the request's language. A 401 says which it is (a
 * wrong password, a session ended elsewhere, none at all), so it is the server's sentence too.
 */
export function errorText(error: CallError, t: Messages): string {
  const status = statusOf(error);
  if (status === 429) return t.tooManyRequests;
  // A gateway's 502/504 (nginx, an ingress, a cloud balancer) may be an HTML page: its status says enough.
  if (status === 502 || status === 503 || status === 504) return t.tryAgain;
  if (status === 401) return isTrpcAnswer(error) ? error.message : t.signInFirst;
  return error.message;
}

/**
 * What a failed call the page made by itself (a purchase token, a seat in the waiting room) means:
 * the shopper pressed nothing, so a rate limit asks for Try again, never for Buy again.
 */
export function unaskedErrorText(error: CallError, t: Messages): string {
  return statusOf(error) === 429 ? t.tooManyRequestsUnasked : errorText(error, t);
}

/** The server's own error shape (a code and a sentence), not a bare status from something in front of it. */
function isTrpcAnswer(error: CallError): boolean {
  return typeof error.data?.code === "string" && error.message !== "";
}

function statusOf(error: CallError): number | undefined {
  const response = error.meta?.response;
  return error.data?.httpStatus ?? (response instanceof Response ? response.status : undefined);
}

/**
 * What a failed sign-in or sign-up means: the sign-in throttle's refusal (a tRPC 429, with the
 * wait from its Retry-After) in the shop's words; the sign-up limit's in the server's, which say
 * whether the address or the browser is refused and when, in the page's language; a 401 is the
 * server's "Email or password is wrong." (its own words if the answer has none); anything else as
 * errorText.
 */
export function authErrorText(error: CallError, t: Messages, mode: "signIn" | "signUp" = "signIn"): string {
  if (statusOf(error) === 401) return isTrpcAnswer(error) ? error.message : t.wrongCredentials;
  if (error.data?.httpStatus === 429 && mode === "signUp" && isTrpcAnswer(error)) return error.message;
  if (error.data?.httpStatus === 429) {
    const response = error.meta?.response;
    const seconds = Number(response instanceof Response ? response.headers.get("retry-after") : NaN);
    return t.signInThrottled(seconds > 0 ? Math.ceil(seconds / 60) : null);
  }
  return errorText(error, t);
}

/**
 * What a refused payment means, in the shopper's language: order.pay's own refusals (deadline
 * passed, already paid, provider unreachable, …) by their tRPC code, so a Chinese page does not
 * show the server's English; session and rate limits as errorText says them. A 503 without a
 * tRPC code is the front door's overload answer, not a provider's.
 */
export function payErrorText(error: CallError, t: Messages): string {
  const status = statusOf(error);
  if (status === 429 || status === 401) return errorText(error, t);
  const code = error.data?.code;
  if (code && (PAY_ERROR_CODES as readonly string[]).includes(code)) return t.payFailed[code as PayErrorCode](error.message);
  return errorText(error, t);
}

/**
 * Whether a stream (room.onStatus, seckill.onResult) was refused over the caps of open streams:
 * its EventSource (the `eventsource` package, providers.tsx) failed with HTTP 429. The error event
 * carries the status as `code`; tRPC's link hands it on as the error's cause, or, when its stream
 * clean-up wraps it, as the error's shape (a tRPC shape's codes are negative JSON-RPC numbers).
 */
export function streamRefused(error: object | null | undefined): boolean {
  const refused = error as { cause?: { code?: unknown }; shape?: { code?: unknown } } | null | undefined;
  return refused?.cause?.code === 429 || refused?.shape?.code === 429;
}

/**
 * What a refused auth.resendVerification means: its own 429 says how long to wait, in the
 * caller's language, so it is shown as the server wrote it; the rest as errorText.
 */
export function resendErrorText(error: CallError, t: Messages): string {
  if (error.data?.code === "TOO_MANY_REQUESTS" && error.message) return error.message;
  return errorText(error, t);
}
