import path from "node:path";
import { createRedis, defineScripts, type RedisConnection, type RedisTarget } from "./clients/redis";
import type { RedisOptions } from "ioredis";

/**
 * The Lua scripts, as files beside the code that calls them, each folder's named with its folder
 * (`<command>-<numKeys>.lua`, like BullMQ's). Resolved from the project root: web, worker, scripts
 * and tests all run from there.
 */
const SCRIPTS = {
  seckill: "seckill/seckill-7.lua",
  release: "seckill/release-3.lua",
  adjustStock: "seckill/adjust-stock-2.lua",
  releaseReservation: "seckill/release-reservation-3.lua",
  takeStock: "seckill/take-stock-2.lua",
  holding: "seckill/holding-2.lua",
  settle: "seckill/settle-3.lua",
  // Only recovery reads the ledger whole and repairs it.
  repairStock: "recovery/repair-stock-4.lua",
  readLedger: "recovery/read-ledger-3.lua",
  // The gateway's: sign-in throttle, session revocations (revocation.ts).
  signInAttempts: "gateway/sign-in-attempts-1.lua",
  revokeSessions: "gateway/revoke-sessions-2.lua",
  sessionEpoch: "gateway/session-epoch-2.lua",
} as const;

/** The scripts as ioredis commands; argument order is each script's KEYS then ARGV. */
export interface SeckillCommands {
  seckill(
    stockKey: string,
    metaKey: string,
    usersKey: string,
    pendingKey: string,
    eligibilityKey: string,
    tokenKey: string,
    holdsKey: string,
    ...argv: ["token", userId: string, freshToken: string, ttlMs: number] | ["reserve", userId: string, reservationId: string, token: string, maxBacklog: number]
  ): Promise<[number, number, string?, number?]>;
  release(stockKey: string, usersKey: string, releasedKey: string, orderId: string, userId: string): Promise<[number, number]>;
  adjustStock(stockKey: string, fenceKey: string, delta: number, seenFence: string): Promise<[number, number, number]>;
  releaseReservation(stockKey: string, usersKey: string, pendingKey: string, reservationId: string, userId: string, returnUnit: "1" | "0"): Promise<[number, number]>;
  takeStock(stockKey: string, pendingKey: string, reservationId: string): Promise<[number, number]>;
  settle(ordersKey: string, pendingKey: string, jobsKey: string, ...reservationAndOrderIds: (string | number)[]): Promise<number>;
  readLedger(stockKey: string, pendingKey: string, releasedKey: string): Promise<[number, number, number, number]>;
  signInAttempts(counterKey: string, ...argv: ["take", limit: number, windowMs: number] | ["give-back"]): Promise<[number, number]>;
  holding(usersKey: string, holdsKey: string, ...argv: ["taken" | "released", userId: string, reservationId: string] | ["returned", userId: string]): Promise<number>;
  repairStock(
    stockKey: string,
    pendingKey: string,
    releasedKey: string,
    fenceKey: string,
    seenStock: number,
    seenPending: number,
    seenReleased: number,
    seenFence: string,
    provenStock: number,
  ): Promise<number>;
  revokeSessions(revocationsKey: string, epochKey: string, userId: string, keepMs: number): Promise<number>;
  sessionEpoch(epochKey: string, revocationsKey: string): Promise<number>;
}

export type AppRedis = RedisConnection & SeckillCommands;

/** The command connection (writes coalesced per turn of the event loop) with the scripts defined on it. */
export function createAppRedis(target: RedisTarget, options: RedisOptions = {}): AppRedis {
  const scripts = Object.fromEntries(Object.entries(SCRIPTS).map(([name, file]) => [name, path.join(process.cwd(), "server", file)]));
  return defineScripts<SeckillCommands>(createRedis(target, options), scripts);
}
