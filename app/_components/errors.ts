import type { Messages } from "../_i18n/messages";

/** The parts of a tRPC client error we read (TRPCClientErrorLike is not typed as an Error). */
interface CallError {
  message: string;
  data?: { httpStatus?: number } | null;
  meta?: Record<string, unknown>;
}

/**
 * What a failed call means to a shopper. Overload and rate limits get the shop's own words (the
 * gateway's 429 is not even a tRPC answer, only its HTTP status tells); other errors carry a
 * message the server wrote for people.
 */
export function errorText(error: CallError, t: Messages): string {
  const response = error.meta?.response;
  const status = error.data?.httpStatus ?? (response instanceof Response ? response.status : undefined);
  if (status === 429) return t.tooManyRequests;
  if (status === 503) return t.tryAgain;
  if (status === 401) return t.signInFirst;
  return error.message;
}
