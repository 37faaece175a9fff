/**
 * How old the dashboard's numbers are, and whether to say so. The dashboard reads once a
 * second; a reading refused (a 429 from the gateway or the front door during the burst, an HTML
 * page where JSON was expected) or late leaves the last one on screen, marked stale with its age.
 */

/** A reading older than this is stale: two polls missed, not one slow answer. */
export const STALE_AFTER_MS = 2500;

export interface LiveReadingState {
  /** Nothing read yet: the page has nothing to keep. */
  hasReading: boolean;
  stale: boolean;
  /** Whole seconds since the numbers on screen were read. */
  ageSeconds: number;
}

/**
 * `readAt` / `failedAt`: epoch ms of the last good reading and the last failed one (0 = never),
 * as react-query keeps them (dataUpdatedAt, errorUpdatedAt).
 */
export function liveReadingState(readAt: number, failedAt: number, now: number): LiveReadingState {
  if (readAt === 0) return { hasReading: false, stale: false, ageSeconds: 0 };
  const ageMs = Math.max(0, now - readAt);
  return { hasReading: true, stale: failedAt > readAt || ageMs > STALE_AFTER_MS, ageSeconds: Math.floor(ageMs / 1000) };
}

/**
 * Why the last reading failed, in a few words: a refusal in front of the app (429, or a page the
 * client could not read as tRPC's JSON) says so instead of "Unable to transform response from server".
 */
export function failureKind(error: { message: string; data?: { httpStatus?: number } | null } | null): "REFUSED" | "UNREADABLE" | "OTHER" {
  if (!error) return "OTHER";
  if (error.data?.httpStatus === 429) return "REFUSED";
  if (/unable to transform response|unexpected token|json/i.test(error.message)) return "UNREADABLE";
  return "OTHER";
}
