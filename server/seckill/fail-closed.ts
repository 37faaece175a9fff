import { AppError } from "../platform/errors";
import { BUSY } from "../platform/common-sentences";

/** Redis or the queue not answering becomes a clear "try again", never a guess (fail closed). */
export function failClosed<T>(work: Promise<T>): Promise<T> {
  // One .catch, not an async frame: it runs on every purchase.
  return work.catch(closed);
}

function closed(error: unknown): never {
  if (error instanceof AppError) throw error;
  throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause: error });
}
