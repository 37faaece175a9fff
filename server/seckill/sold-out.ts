import type { RedisConnection } from "../clients/redis";
import { soldOutChannel } from "../sale-redis/keys";

/**
 * The in-process sold-out flag: once a sale is known to be sold out, this process answers
 * SOLD_OUT without touching Redis. Flags travel between instances over Redis pub/sub, so a
 * sell-out seen by one instance (or a warm-up or a released unit that clears them) reaches all
 * of them. A flag also lapses after `ttlMs`: pub/sub does not order messages from different
 * publishers, so a late "sold out" may land after the "buyable again" that followed it.
 *
 * A lapsed flag is checked again with ONE question to Redis (`recheck`: is the sale still sold
 * out?), and it keeps answering until the reply is in: still sold out renews it, anything else
 * (stock back, the sale's state gone, Redis failing) drops it and requests take the full path.
 * Letting requests through instead sent every request of the round trip's moment through
 * authentication, the limits and the script, hundreds at a time under a crowd, every lapse.
 */
export class SoldOutFlags {
  private readonly flags = new Map<number, { since: number; rechecking: boolean }>();

  constructor(
    private readonly ttlMs: number,
    private readonly recheck: (saleId: number) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {}

  isSoldOut(saleId: number): boolean {
    const flag = this.flags.get(saleId);
    if (flag === undefined) return false;
    if (this.now() - flag.since >= this.ttlMs && !flag.rechecking) {
      flag.rechecking = true;
      void this.recheckLapsed(saleId, flag);
    }
    return true;
  }

  apply(message: SoldOutMessage): void {
    if (message.soldOut) this.flags.set(message.saleId, { since: this.now(), rechecking: false });
    else this.flags.delete(message.saleId);
  }

  private async recheckLapsed(saleId: number, flag: { since: number; rechecking: boolean }) {
    const stillSoldOut = await this.recheck(saleId).catch(() => false);
    // A broadcast that came meanwhile is newer than this reply.
    if (this.flags.get(saleId) !== flag) return;
    if (stillSoldOut) this.flags.set(saleId, { since: this.now(), rechecking: false });
    else this.flags.delete(saleId);
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
