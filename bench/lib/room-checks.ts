/**
 * The pure parts of the waiting-room run (`--room`): when each arrival is due, and the checks on
 * what the room answered: admitted per second against the admission rate, places in the order of
 * their admission moments, and the tickets a purchase-peak round needs.
 */

/**
 * When arrival i of `arrivals` is due, in ms after the first: evenly spaced over `seconds`
 * (open loop: due whether or not earlier ones were answered).
 */
export function arrivalDueOffsetMs(i: number, arrivals: number, seconds: number): number {
  return arrivals <= 0 ? 0 : (i * seconds * 1000) / arrivals;
}

/** One purchase presented with a ticket: its admission moment and whether it was let through. */
export interface PresentedPass {
  /** epoch ms the room seated the shopper (its own clock: a slow answer does not move it) */
  seatedAt: number;
  /** epoch ms the ticket names */
  admitAt: number;
  /** answered as a pass: not NOT_ADMITTED_YET, not an error */
  admitted: boolean;
  /** the answer reserved a unit (QUEUED) */
  reserved: boolean;
}

export interface AdmittedSecond {
  /** whole seconds after the opening */
  second: number;
  admitted: number;
  /** the second is a whole one while shoppers waited and stock remained: the ±tolerance applies */
  checked: boolean;
  ok: boolean;
}

/** The first admission may come this long into a second that still counts as whole (the first joins' answers). */
export const START_SLACK_MS = 10;
/** A span with fewer admissions than this says nothing of a rate: it is reported, not checked. */
export const MIN_SPAN_ADMISSIONS = 20;

export interface AdmissionCheck {
  rows: AdmittedSecond[];
  /** seconds the ±tolerance applied to */
  checkedSeconds: number;
  ok: boolean;
  /** epoch ms: the line was the limit (shoppers waited, stock remained) from `from` to `to` */
  limitedBy: { from: number; to: number } | null;
  /** when no whole second qualified: admitted over the span the line was the limit, as a rate */
  span: { fromMs: number; toMs: number; admitted: number; perSecond: number; checked: boolean; ok: boolean } | null;
}

/**
 * Admitted per second of admission moment, from the opening, against `rate` within ±`tolerance`.
 * Only while the line was what held shoppers back is its rate visible: during the longest stretch
 * in which some seated shopper was not yet admitted (outside it joins reached the room slower than
 * the rate, and each was admitted on arrival), and until the last admission that still reserved
 * (after it the sold-out flag answers, not the line). A second wholly inside is checked; with no
 * such second (a small stock sells out within one), the stretch itself, as a rate.
 */
export function checkAdmittedPerSecond(passes: readonly PresentedPass[], rate: number, opensAt: number, tolerance = 0.05): AdmissionCheck {
  const admitted = passes.filter((p) => p.admitted);
  if (!admitted.length) return { rows: [], checkedSeconds: 0, ok: false, limitedBy: null, span: null };
  // Loops, not Math.min(...): a million arguments overflow the stack.
  let first = Infinity;
  let lastReserved = -Infinity;
  for (const p of admitted) {
    first = Math.min(first, p.admitAt);
    if (p.reserved) lastReserved = Math.max(lastReserved, p.admitAt);
  }
  if (lastReserved < first) lastReserved = first;
  const waiting = longestWaitingStretch(passes) ?? { from: first, to: first };
  const from = Math.max(first, waiting.from);
  const end = Math.max(from, Math.min(lastReserved, waiting.to));
  const counts: number[] = [];
  for (const p of admitted) {
    const second = Math.floor((p.admitAt - opensAt) / 1000);
    if (second >= 0) counts[second] = (counts[second] ?? 0) + 1;
  }
  const within = (n: number) => Math.abs(n - rate) <= tolerance * rate;
  const rows: AdmittedSecond[] = Array.from({ length: counts.length }, (_, second) => {
    const secondFrom = opensAt + second * 1000;
    const checked = from <= secondFrom + START_SLACK_MS && secondFrom + 1000 <= end;
    const n = counts[second] ?? 0;
    return { second, admitted: n, checked, ok: !checked || within(n) };
  });
  const checkedSeconds = rows.filter((r) => r.checked).length;
  const limitedBy = { from, to: end };
  if (checkedSeconds > 0) return { rows, checkedSeconds, ok: rows.every((r) => r.ok), limitedBy, span: null };
  // No whole second: the stretch as a rate. n passes span n − 1 gaps of 1/rate.
  const inSpan = admitted.filter((p) => p.admitAt >= from && p.admitAt <= end).length;
  const spanMs = end - from;
  const perSecond = spanMs > 0 ? ((inSpan - 1) * 1000) / spanMs : 0;
  const checked = inSpan >= MIN_SPAN_ADMISSIONS;
  const ok = !checked || within(perSecond);
  return {
    rows,
    checkedSeconds,
    ok,
    limitedBy,
    span: { fromMs: from - opensAt, toMs: end - opensAt, admitted: inSpan, perSecond, checked, ok },
  };
}

/**
 * The longest stretch (epoch ms) in which at least one seated shopper was not yet admitted; null
 * when nobody ever waited. A moment read back along the line (admitted before seated) counts as
 * admitted on arrival.
 */
export function longestWaitingStretch(passes: readonly Pick<PresentedPass, "seatedAt" | "admitAt">[]): { from: number; to: number } | null {
  const seated = passes.map((p) => p.seatedAt).sort((a, b) => a - b);
  const admitted = passes.map((p) => Math.max(p.admitAt, p.seatedAt)).sort((a, b) => a - b);
  let best: { from: number; to: number } | null = null;
  let waitingFrom: number | null = null;
  let s = 0;
  let a = 0;
  while (s < seated.length || a < admitted.length) {
    // Every seat and admission at one moment is taken together: seated and admitted at once is no wait.
    const at = Math.min(seated[s] ?? Infinity, admitted[a] ?? Infinity);
    while (s < seated.length && seated[s]! === at) s++;
    while (a < admitted.length && admitted[a]! === at) a++;
    const waiting = s - a;
    if (waiting > 0 && waitingFrom === null) waitingFrom = at;
    if (waiting <= 0 && waitingFrom !== null) {
      if (!best || at - waitingFrom > best.to - best.from) best = { from: waitingFrom, to: at };
      waitingFrom = null;
    }
  }
  return best;
}

/** A ticket the room handed out: its place in line and its admission moment. */
export interface Placed {
  position: number;
  admitAt: number;
}

/**
 * Places strictly increasing with admission moment: sorted by admission moment (ties by place),
 * each place is above the one before. Returns the pairs out of order (at most `limit` of them)
 * and how many places were given twice.
 */
export function checkPlacesIncrease(
  tickets: readonly Placed[],
  limit = 5,
): { ok: boolean; outOfOrder: number; examples: [Placed, Placed][]; repeated: number } {
  const sorted = [...tickets].sort((a, b) => a.admitAt - b.admitAt || a.position - b.position);
  let outOfOrder = 0;
  let repeated = 0;
  const examples: [Placed, Placed][] = [];
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    const here = sorted[i]!;
    if (here.position === before.position) repeated++;
    else if (here.position < before.position) {
      outOfOrder++;
      if (examples.length < limit) examples.push([before, here]);
    }
  }
  return { ok: outOfOrder === 0 && repeated === 0, outOfOrder, examples, repeated };
}

/**
 * Tickets a purchase-peak round should hold: enough for `seconds` at `expectedPerSecond` with
 * half as much again to spare, since a round that runs out answers TICKET_USED, which is no
 * purchase.
 */
export function ticketsForRound(expectedPerSecond: number, seconds: number): number {
  return Math.ceil(1.5 * expectedPerSecond * seconds);
}

/**
 * Shoppers holding a ticket not yet admitted, sampled every `stepMs` from the opening: seated by
 * then, admitted after it.
 */
export function waitingOverTime(
  tickets: readonly { seatedAt: number; admitAt: number }[],
  opensAt: number,
  untilMs: number,
  stepMs = 250,
): { atMs: number; waiting: number }[] {
  const seated = tickets.map((t) => t.seatedAt).sort((a, b) => a - b);
  const admitted = tickets.map((t) => t.admitAt).sort((a, b) => a - b);
  const countUpTo = (sorted: number[], at: number) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const rows: { atMs: number; waiting: number }[] = [];
  for (let atMs = 0; atMs <= untilMs; atMs += stepMs) {
    const at = opensAt + atMs;
    rows.push({ atMs, waiting: Math.max(0, countUpTo(seated, at) - countUpTo(admitted, at)) });
  }
  return rows;
}
