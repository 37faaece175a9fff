import type { Services } from "../platform/services";

/**
 * Processed notify ids are what lets a provider's retry of a notification be answered `success`
 * again (server/payments/pay.ts). Alipay retries over about 25 hours, WeChat Pay about 24; ids kept
 * PAYMENT_NOTIFY_KEEP_HOURS (48) outlive both, and then go, so the table holds two days of
 * notifications, not every one ever received. The worker prunes hourly (a job scheduler).
 */

/** Notifications received before this moment may be pruned. */
export function notifyPruneCutoff(now: Date, keepHours: number): Date {
  return new Date(now.getTime() - keepHours * 3600_000);
}

/** Whether a notification received at `receivedAt` is past keeping. */
export function isPrunable(receivedAt: Date, now: Date, keepHours: number): boolean {
  return receivedAt < notifyPruneCutoff(now, keepHours);
}

/** Rows deleted per statement: short statements keep row locks (and replication) brief. */
const PRUNE_BATCH = 5000;

/** Deletes the processed notifications past keeping, in batches; how many went. */
export async function pruneProcessedNotifications(services: Pick<Services, "db" | "env">, now = new Date()): Promise<number> {
  const cutoff = notifyPruneCutoff(now, services.env.PAYMENT_NOTIFY_KEEP_HOURS);
  let pruned = 0;
  for (;;) {
    // Plain SQL: Prisma's deleteMany has no LIMIT. ORDER BY id … LIMIT runs on MySQL 8 and MariaDB.
    const deleted = await services.db
      .$executeRaw`DELETE FROM payment_notifications WHERE received_at < ${cutoff} ORDER BY id LIMIT ${PRUNE_BATCH}`;
    pruned += deleted;
    if (deleted < PRUNE_BATCH) return pruned;
  }
}
