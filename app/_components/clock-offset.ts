/** One round trip to the server's clock: browser times around it, and the server's answer. */
export interface ClockSample {
  sentAt: number;
  receivedAt: number;
  serverNowMs: number;
}

/**
 * How far the server's clock is ahead of the browser's (ms; negative when behind), NTP-style:
 * the server read its clock about halfway through the round trip, and of several samples the one
 * with the shortest round trip has the smallest error (at most half its round trip).
 */
export function clockOffset(samples: readonly ClockSample[]): number {
  if (samples.length === 0) throw new Error("clockOffset needs at least one sample");
  const best = samples.reduce((a, b) => (b.receivedAt - b.sentAt < a.receivedAt - a.sentAt ? b : a));
  return best.serverNowMs - (best.sentAt + best.receivedAt) / 2;
}

/** Milliseconds as the countdown shows them: h:mm:ss, or m:ss under an hour; rounds up. */
export function countdownText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * A sale's opening as a shopper reads it: the time to the minute ("14:00") and the day ("3 Dec",
 * "12月3日"), in `locale`, in the browser's time zone unless `timeZone` is given. No seconds and
 * no zone name: shoppers read "12月5日 07:54 开始", not "12月5日 GMT+8 07:54:24 开始".
 */
export function openingParts(at: Date, locale: string, timeZone?: string): { time: string; date: string } {
  const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(at);
  const date = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone }).format(at);
  return { time, date };
}
