import type { Redis } from "ioredis";
import { soldOutChannel } from "./keys";

/**
 * The in-process sold-out flag: once a sale is known to be sold out, this process answers
 * SOLD_OUT without touching Redis. Flags travel between instances over Redis pub/sub, so a
 * sell-out seen by one instance (or a warm-up that resets them) reaches all of them.
 */
export class SoldOutFlags {
  private readonly soldOut = new Set<number>();

  isSoldOut(saleId: number): boolean {
    return this.soldOut.has(saleId);
  }

  apply(message: SoldOutMessage): void {
    if (message.soldOut) this.soldOut.add(message.saleId);
    else this.soldOut.delete(message.saleId);
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
  redis: Redis,
  namespace: string,
  flags: SoldOutFlags,
  message: SoldOutMessage,
): Promise<void> {
  flags.apply(message);
  await redis.publish(soldOutChannel(namespace), JSON.stringify(message));
}

/** Keeps `flags` in step with broadcasts; `subscriber` must be a connection of its own. */
export async function followSoldOutBroadcasts(subscriber: Redis, namespace: string, flags: SoldOutFlags) {
  const channel = soldOutChannel(namespace);
  subscriber.on("message", (from, raw) => {
    if (from !== channel) return;
    const message = parseSoldOutMessage(raw);
    if (message) flags.apply(message);
  });
  await subscriber.subscribe(channel);
}
