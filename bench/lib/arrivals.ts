/**
 * When the open loop's attempts are due: a warm-up whose rate climbs linearly from zero to the
 * probe's rate over its first `rampSeconds` and then holds it, followed by the measured attempts
 * at that rate, evenly spaced (k6's ramping-arrival-rate, then its constant-arrival-rate). A
 * warm-up at the full rate from its first millisecond meets a hundred new connections and a load
 * generator whose open-loop code is not yet optimised; at 80 % of the peak the service has too
 * little spare capacity to drain the backlog that start leaves, and in small runs it lasted
 * seconds into the measured attempts.
 */
export interface ArrivalSchedule {
  /** how many of the first attempts are the warm-up's */
  warmupAttempts: number;
  /** when attempt n (0-based, warm-up included) is due, in ms after the first */
  dueOffsetMs(n: number): number;
}

export function arrivalSchedule(attemptsPerSecond: number, warmupSeconds: number, rampSeconds: number): ArrivalSchedule {
  const ramp = Math.min(rampSeconds, warmupSeconds);
  // The area under a rate that climbs to attemptsPerSecond in `ramp` seconds.
  const rampAttempts = (attemptsPerSecond * ramp) / 2;
  return {
    warmupAttempts: Math.floor(rampAttempts + attemptsPerSecond * (warmupSeconds - ramp)),
    // During the ramp n(t) = rate·t² / (2·ramp), so t(n) = √(2·ramp·n / rate).
    dueOffsetMs: (n) =>
      1000 * (n < rampAttempts ? Math.sqrt((2 * ramp * n) / attemptsPerSecond) : ramp + (n - rampAttempts) / attemptsPerSecond),
  };
}
