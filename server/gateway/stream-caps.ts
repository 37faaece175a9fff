import type { Localized } from "../platform/i18n";
import { sentence } from "../platform/sentences/sentence";

/**
 * Open streams (server-sent events: room.onStatus, seckill.onResult) per shopper and per client
 * address, counted in this process. A stream holds a connection for as long as it lives, so a
 * cap on how many are open, not on how often they are asked for, is what keeps a crowd's share
 * of a process bounded. Plain counting, no I/O: server/trpc/http.ts applies it.
 */

/** How long a refused page is told to wait before asking again (Retry-After). */
export const STREAM_RETRY_AFTER_SECONDS = 30;

/** Whom a stream counts against: the signed-in shopper (null: none yet) and the address's rate-limit key. */
export interface StreamOwner {
  shopper: string | null;
  address: string;
}

export type StreamAdmission = { admitted: true; release: () => void } | { admitted: false; over: "shopper" | "address" };

/** The refusal of a stream over its cap. A function, not a table: the shop's pages import this module for the wait alone. */
export function tooManyStreams(over: "shopper" | "address"): Localized {
  return over === "shopper"
    ? sentence((s) => s.gateway.tooManyStreamsForShopper(STREAM_RETRY_AFTER_SECONDS))
    : sentence((s) => s.gateway.tooManyStreamsFromAddress(STREAM_RETRY_AFTER_SECONDS));
}

export class StreamCaps {
  private readonly byShopper = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  /** `perShopper`, `perAddress`: the most open streams of each; 0 = no cap. */
  constructor(private readonly caps: { perShopper: number; perAddress: number }) {}

  /**
   * Counts a new stream against its owner, or refuses it over either cap (and counts nothing).
   * `release` gives the slot back; it may be called any number of times, only the first counts.
   */
  open(owner: StreamOwner): StreamAdmission {
    if (owner.shopper !== null && isFull(this.byShopper, owner.shopper, this.caps.perShopper)) return { admitted: false, over: "shopper" };
    if (isFull(this.byAddress, owner.address, this.caps.perAddress)) return { admitted: false, over: "address" };
    if (owner.shopper !== null) add(this.byShopper, owner.shopper, 1);
    add(this.byAddress, owner.address, 1);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        if (owner.shopper !== null) add(this.byShopper, owner.shopper, -1);
        add(this.byAddress, owner.address, -1);
      },
    };
  }

  /** Streams open now: of one shopper, of one address, or (neither given) of every address together. */
  openCount(of: { shopper?: string; address?: string } = {}): number {
    if (of.shopper !== undefined) return this.byShopper.get(of.shopper) ?? 0;
    if (of.address !== undefined) return this.byAddress.get(of.address) ?? 0;
    let total = 0;
    for (const count of this.byAddress.values()) total += count;
    return total;
  }

  /** Owners with a stream open (a released owner leaves no entry behind). */
  owners(): { shoppers: number; addresses: number } {
    return { shoppers: this.byShopper.size, addresses: this.byAddress.size };
  }
}

function isFull(counts: Map<string, number>, key: string, cap: number): boolean {
  return cap > 0 && (counts.get(key) ?? 0) >= cap;
}

function add(counts: Map<string, number>, key: string, delta: number) {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
