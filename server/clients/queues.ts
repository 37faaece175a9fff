import { Queue, type ConnectionOptions } from "bullmq";
import { z } from "zod";
import { queuePrefix } from "../seckill/keys";

/** Queue names and job payloads: the contract between the web and the worker processes. */
export const QUEUE = { createOrder: "create-order" } as const;

export const createOrderJob = z.object({
  reservationId: z.string().min(1).max(64),
  saleId: z.number().int().positive(),
  userId: z.number().int().positive(),
  reservedAt: z.number().int().nonnegative(),
});
export type CreateOrderJob = z.infer<typeof createOrderJob>;

export interface Queues {
  createOrder: Queue<CreateOrderJob>;
}

export const CREATE_ORDER_JOB_OPTIONS = {
  // A MySQL outage must not lose a reservation: retry for minutes, then keep the failed job
  // (the reservation stays pending, so recovery can find it).
  attempts: 12,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { age: 3600, count: 50_000 },
  removeOnFail: false,
} as const;

export function createQueues(connection: ConnectionOptions, namespace: string): Queues {
  const prefix = queuePrefix(namespace);
  return {
    createOrder: new Queue<CreateOrderJob>(QUEUE.createOrder, {
      connection,
      prefix,
      defaultJobOptions: CREATE_ORDER_JOB_OPTIONS,
    }),
  };
}
