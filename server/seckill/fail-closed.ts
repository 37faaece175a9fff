import { AppError } from "../errors";
import { BUSY } from "../common-sentences";

/** Redis or the queue not answering becomes a clear "try again", never a guess (fail closed). */
export async function failClosed<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause: error });
  }
}
