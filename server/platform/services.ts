import type { Env } from "./env";
import type { Db, SqlPool } from "../clients/db";
import type { AppRedis } from "./redis-scripts";
import type { Queues, QueuedReservation } from "../queues/queues";
import type { SoldOutFlags } from "../seckill/sold-out";
import type { Metrics } from "./metrics";
import type { RateLimiter } from "../gateway/rate-limit";
import type { PaymentProviders } from "../payments/providers";
import type { PurchaseStats } from "../seckill/sale-stats";
import type { GroupCommitter } from "../lib/group-commit";
import type { SessionRevocations } from "../gateway/revocation";
import type { StreamCaps } from "../gateway/stream-caps";
import type { PasswordHasher } from "../gateway/password-hasher";
import type { ContactSender } from "../clients/contact-sender";

/**
 * What every process has from the outside world, built from one Env by the composition root
 * (server/composition.ts). Domain functions take the part they need as an argument (no hidden
 * singletons), so tests build their own against their own database and key namespace.
 */
export interface CoreServices {
  env: Env;
  db: Db;
  /** The driver's own pool for the worker's group commit (server/clients/db.ts createSqlPool). */
  sql: SqlPool;
  redis: AppRedis;
  queues: Queues;
  soldOut: SoldOutFlags;
  metrics: Metrics;
  /** saleId -> its stock bucket count, as warm-up wrote it (fixed at creation, so kept for good). */
  saleBuckets: Map<number, number>;
  /** The payment providers checkout offers (PAYMENT_PROVIDERS), and each one's adapter by name. */
  payments: PaymentProviders;
  close(): Promise<void>;
}

/** A process serving shoppers (web, seckill service) has the parts their calls need too. */
export interface Services extends CoreServices {
  /** Per-second purchase answers for the admin dashboard, flushed to Redis once a second. */
  purchaseStats: PurchaseStats;
  /**
   * Calls per second: requestRate per client address at the gateway, purchaseRate per shopper for a
   * token presented again, notifyRate per client address at /api/payments/notify(/<provider>), which
   * the gateway's request rate leaves out.
   */
  rateLimits: { requestRate: RateLimiter; purchaseRate: RateLimiter; notifyRate: RateLimiter };
  /** Reservations on their way into create-order jobs, a batch per few milliseconds (server/seckill/enqueue.ts). */
  orderEnqueuer: Pick<GroupCommitter<QueuedReservation, void>, "submit" | "drain">;
  /** Revoked sessions, kept in step with Redis in the background (server/gateway/revocation.ts). */
  sessions: SessionRevocations;
  /** Live-update streams open in this process, per shopper and per client address (STREAMS_PER_SHOPPER, STREAMS_PER_IP). */
  streams: StreamCaps;
  /** Password hashing and checking, off the event loop and a bounded number at once (server/gateway/password-hasher.ts). */
  passwords: PasswordHasher;
  /** Mail to shoppers (verification links): SMTP_URL's server, or the log without one (server/clients/contact-sender.ts). */
  contacts: ContactSender;
}
