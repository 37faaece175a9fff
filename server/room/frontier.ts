/**
 * The room's admission line: how many places in line have been admitted by a given moment, kept
 * as a straight line `admitted(t) = frontier + rate × (t − frontierAt)` that never runs more than
 * one place ahead of the shoppers who joined. Nothing is stored per waiting shopper and nothing
 * runs while they wait: join-room-4.lua moves the line's anchor forward when someone joins, and
 * every ticket's admission moment follows from its position. admissionMoment and admittedBy
 * are what the script computes, in TypeScript for the storefront, the dashboard and the tests.
 */
export interface Frontier {
  /** places admitted at `frontierAt` (a real number: admission is continuous) */
  frontier: number;
  /** epoch ms the anchor was taken; the opening before anyone was admitted */
  frontierAt: number;
  /** places admitted per second */
  rate: number;
  /** shoppers who have joined (seats) */
  joined: number;
}

/** Places admitted by `now`: the line, never before its anchor, never past one beyond the joined. */
export function admittedBy(line: Frontier, now: number): number {
  if (now <= line.frontierAt) return line.frontier;
  return Math.min(line.frontier + (line.rate * (now - line.frontierAt)) / 1000, line.joined + 1);
}

/**
 * The epoch ms `position` is admitted at on the line as it stands: ahead of the line, when the
 * line will reach it; already reached, when it did (read back along the line), so asking again
 * later never opens a new pass window for a place admitted long ago.
 */
export function admissionMoment(line: Frontier, position: number, now: number): number {
  const admitted = admittedBy(line, now);
  if (position <= admitted)
    return Math.min(Math.floor(line.frontierAt + ((position - line.frontier) * 1000) / line.rate), Math.max(now, line.frontierAt));
  const from = Math.max(now, line.frontierAt);
  return Math.ceil(from + ((position - admitted) * 1000) / line.rate);
}

/** Shoppers ahead of `position` still waiting at `now`. */
export function aheadOf(line: Frontier, position: number, now: number): number {
  return Math.max(0, Math.ceil(position - 1 - admittedBy(line, now)));
}

/**
 * The line after the operator changes the rate at `now`: whoever is admitted stays admitted, and
 * everyone still waiting is admitted from now on at the new rate, in the same order. Tickets out
 * keep the moment they name until the page reads the line again (room.onStatus sends the new
 * one at once; a reload asks room.join).
 */
export function rebaseFrontier(line: Frontier, newRate: number, now: number): Frontier {
  return { frontier: admittedBy(line, now), frontierAt: Math.max(now, line.frontierAt), rate: newRate, joined: line.joined };
}
