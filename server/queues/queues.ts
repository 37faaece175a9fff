import { Queue, type ConnectionOptions } from "bullmq";
import { z } from "zod";
import { MAX_ORDER_BATCH_SIZE } from "../platform/env";
import { bullmqTelemetry } from "../platform/tracing";

/** BullMQ prefix; hash-tagged so a queue's keys stay in one Cluster slot. */
export function queuePrefix(namespace: string): string {
  return `${namespace}:{bull}`;
}

/** Queue names and job payloads: the contract between the web and the worker processes. */
export const QUEUE = {
  createOrder: "create-order",
  cancelOrder: "cancel-order",
  sweepOrders: "sweep-orders",
  paymentNotify: "payment-notify",
  reconcile: "reconcile",
  pruneNotifications: "prune-notifications",
  refundPayment: "refund-payment",
} as const;

export const queuedReservation = z.object({
  reservationId: z.string().min(1).max(64),
  saleId: z.number().int().positive(),
  userId: z.number().int().positive(),
  reservedAt: z.number().int().nonnegative(),
});
export type QueuedReservation = z.infer<typeof queuedReservation>;

/**
 * A create-order job carries the reservations a web instance took within a few milliseconds
 * (server/seckill/enqueue.ts), so the worker pays one job fetch and completion per batch, not
 * per order; check-back's re-enqueue is a job of one.
 */
export const createOrderJob = z.object({ reservations: z.array(queuedReservation).min(1).max(MAX_ORDER_BATCH_SIZE) });
export type CreateOrderJob = z.infer<typeof createOrderJob>;

/**
 * Adds a create-order job under `jobId` (see createOrderJobId: deterministic, and a reservation id
 * is UNIQUE in MySQL), so a second add of the same job is a no-op.
 */
export function enqueueCreateOrder(queues: Queues, reservations: readonly QueuedReservation[], jobId: string) {
  return queues.createOrder.add("create-order", { reservations: [...reservations] }, { jobId });
}

/**
 * The reconcile queue carries two jobs: the periodic `reconcile` round (a job scheduler) and
 * `rewarm-<saleId>`, asked for by a web instance that found a sale's Redis state gone. The
 * deterministic id folds a crowd of such requests into one job.
 */
export const rewarmJob = z.object({ saleId: z.number().int().positive() });
export type ReconcileJob = z.infer<typeof rewarmJob> | Record<string, never>;
export const RECONCILE_SCHEDULER_ID = "reconcile-live-sales";

export function requestRewarm(queues: Queues, saleId: number) {
  return queues.reconcile.add("rewarm", { saleId }, { jobId: `rewarm-${saleId}` });
}

/**
 * Cancel the orders of one group commit that are still unpaid at their pay deadline (a delayed
 * job, due at the deadline they share): one timer per batch of orders, not per order.
 */
export const cancelOrderJob = z.object({ orderIds: z.array(z.number().int().positive()).min(1).max(MAX_ORDER_BATCH_SIZE) });
export type CancelOrderJob = z.infer<typeof cancelOrderJob>;

/**
 * Job id `cancel-<first>-<last>-<count>` of the sorted order ids (orders.id is unique): the same
 * orders always get the same id. A redelivered batch grouped differently gets a second timer for
 * some orders, which is harmless: a cancellation is a conditional transition.
 */
export function cancelOrderJobId(orderIds: readonly number[]): string {
  const sorted = [...orderIds].sort((a, b) => a - b);
  return `cancel-${sorted[0]}-${sorted[sorted.length - 1]}-${sorted.length}`;
}

/** The periodic sweep (a BullMQ job scheduler); it carries no data. */
export type SweepOrdersJob = Record<string, never>;
export const SWEEP_SCHEDULER_ID = "sweep-overdue-orders";

/**
 * The sandbox provider's notification of a confirmed payment, delivered (and re-delivered until
 * answered `success`) by the worker, as a real provider's servers would. No address: the worker
 * delivers to the configured PUBLIC_BASE_URL only (an older job's notifyUrl is dropped unread).
 */
export const paymentNotifyJob = z.object({
  outTradeNo: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  tradeNo: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  totalAmount: z.string().regex(/^\d{1,10}\.\d{2}$/),
});
export type PaymentNotifyJob = z.infer<typeof paymentNotifyJob>;

/** Job id `notify-<outTradeNo>`: one notification per trade however often the buyer confirms. */
export function paymentNotifyJobId(outTradeNo: string): string {
  return `notify-${outTradeNo}`;
}

/**
 * Ask a provider again for a refund it could not answer (down, timed out): the payment is
 * REFUND_PENDING under its refund number, so asking again refunds once. `reason` is what the
 * admin gave, passed on to the provider.
 */
export const refundPaymentJob = z.object({
  paymentId: z.number().int().positive(),
  reason: z.string().max(100).optional(),
});
export type RefundPaymentJob = z.infer<typeof refundPaymentJob>;

/** Job id `refund-<paymentId>`: one retry loop per payment however often it is asked for (payments.refund_no UNIQUE behind it). */
export function refundPaymentJobId(paymentId: number): string {
  return `refund-${paymentId}`;
}

/** The hourly prune of processed notify ids (a BullMQ job scheduler); it carries no data. */
export type PruneNotificationsJob = Record<string, never>;
export const PRUNE_NOTIFICATIONS_SCHEDULER_ID = "prune-processed-notifications";

export interface Queues {
  createOrder: Queue<CreateOrderJob>;
  cancelOrder: Queue<CancelOrderJob>;
  sweepOrders: Queue<SweepOrdersJob>;
  paymentNotify: Queue<PaymentNotifyJob>;
  reconcile: Queue<ReconcileJob>;
  pruneNotifications: Queue<PruneNotificationsJob>;
  refundPayment: Queue<RefundPaymentJob>;
}

export const CREATE_ORDER_JOB_OPTIONS = {
  // A MySQL outage must not lose a reservation: retry for minutes, then keep the failed job
  // (the reservation stays pending, so recovery can find it).
  attempts: 12,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { age: 3600, count: 50_000 },
  removeOnFail: false,
} as const;

const CANCEL_ORDER_JOB_OPTIONS = {
  // A unit must come back even through a MySQL or Redis outage; the sweeper is the backstop.
  attempts: 20,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: { age: 3600, count: 50_000 },
  removeOnFail: false,
} as const;

const SWEEP_ORDERS_JOB_OPTIONS = { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } as const;
const PRUNE_NOTIFICATIONS_JOB_OPTIONS = { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } as const;

// Completed re-warms go, so the next loss of the sale's state can ask again under the same id.
const RECONCILE_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: { count: 100 },
  attempts: 3,
  backoff: { type: "fixed", delay: 1000 },
} as const;

const PAYMENT_NOTIFY_JOB_OPTIONS = {
  // Like Alipay and WeChat Pay: keep notifying, further and further apart, until answered
  // `success` (1 s, 2 s, 4 s … about 17 minutes in all).
  attempts: 10,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: { age: 24 * 3600 },
  removeOnFail: false,
} as const;

export const REFUND_PAYMENT_JOB_OPTIONS = {
  // Until the provider answers: 1 s, 2 s, 4 s … (16 attempts, about 18 hours); the sweep asks
  // every round as well. Done jobs go, so a later refusal retried by the admin can add it again.
  attempts: 16,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

export function createQueues(connection: ConnectionOptions, namespace: string): Queues {
  // While tracing is on, a job carries the context it was added in, for the worker's span.
  const common = { connection, prefix: queuePrefix(namespace), telemetry: bullmqTelemetry() };
  return {
    createOrder: new Queue<CreateOrderJob>(QUEUE.createOrder, { ...common, defaultJobOptions: CREATE_ORDER_JOB_OPTIONS }),
    cancelOrder: new Queue<CancelOrderJob>(QUEUE.cancelOrder, { ...common, defaultJobOptions: CANCEL_ORDER_JOB_OPTIONS }),
    sweepOrders: new Queue<SweepOrdersJob>(QUEUE.sweepOrders, { ...common, defaultJobOptions: SWEEP_ORDERS_JOB_OPTIONS }),
    paymentNotify: new Queue<PaymentNotifyJob>(QUEUE.paymentNotify, { ...common, defaultJobOptions: PAYMENT_NOTIFY_JOB_OPTIONS }),
    reconcile: new Queue<ReconcileJob>(QUEUE.reconcile, { ...common, defaultJobOptions: RECONCILE_JOB_OPTIONS }),
    pruneNotifications: new Queue<PruneNotificationsJob>(QUEUE.pruneNotifications, {
      ...common,
      defaultJobOptions: PRUNE_NOTIFICATIONS_JOB_OPTIONS,
    }),
    refundPayment: new Queue<RefundPaymentJob>(QUEUE.refundPayment, { ...common, defaultJobOptions: REFUND_PAYMENT_JOB_OPTIONS }),
  };
}
