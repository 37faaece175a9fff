import type { RedisConnection } from "../clients/redis";
import { soldOutChannel } from "./keys";

/**
 * The in-process sold-out flag: once a sale is known to be sold out, this process answers
 * SOLD_OUT without touching Redis. Flags travel between instances over Redis pub/sub, so a
 * sell-out seen by one instance (or a warm-up or a released unit that clears them) reaches all
 * of them. A flag also lapses after `ttlMs`: pub/sub does not order messages from different
 * publishers, so a late "sold out" may land after the "buyable again" that followed it; a lapse
 * lets the next request ask Redis, which sets the flag again if the sale really is sold out.
 */
export class SoldOutFlags {
  private readonly soldOutSince = new Map<number, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  isSoldOut(saleId: number): boolean {
    const since = this.soldOutSince.get(saleId);
    if (since === undefined) return false;
    if (this.now() - since < this.ttlMs) return true;
    this.soldOutSince.delete(saleId);
    return false;
  }

  apply(message: SoldOutMessage): void {
    if (message.soldOut) this.soldOutSince.set(message.saleId, this.now());
    else this.soldOutSince.delete(message.saleId);
  }
}

export interface SoldOutMessage {
  saleId: number;
  soldOut: boolean;
}

export function parseSoldOutMessage(raw: string): SoldOutMessage | null {
  try {
    const value = JSON.parse(raw) as Partial<SoldOutMessage>;
    if (typeof value.saleId === "number" && typeof value.soldOut === "boolean") {
      return { saleId: value.saleId, soldOut: value.soldOut };
    }
  } catch {
    // fall through: a malformed message is ignored, never trusted
  }
  return null;
}

/** Flips the flag here at once and tells every other instance. */
export async function broadcastSoldOut(
  redis: RedisConnection,
  namespace: string,
  flags: SoldOutFlags,
  message: SoldOutMessage,
): Promise<void> {
  flags.apply(message);
  await redis.publish(soldOutChannel(namespace), JSON.stringify(message));
}

/** Keeps `flags` in step with broadcasts; `subscriber` must be a connection of its own. */
export async function followSoldOutBroadcasts(subscriber: RedisConnection, namespace: string, flags: SoldOutFlags) {
  const channel = soldOutChannel(namespace);
  subscriber.on("message", (from, raw) => {
    if (from !== channel) return;
    const message = parseSoldOutMessage(raw);
    if (message) flags.apply(message);
  });
  await subscriber.subscribe(channel);
}
