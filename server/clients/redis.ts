import { readFileSync } from "node:fs";
import path from "node:path";
import { Redis, type RedisOptions } from "ioredis";

/**
 * Lua scripts live as files beside the code that calls them (server/seckill/*.lua), named
 * `<command>-<numKeys>.lua` like BullMQ's. They are registered once per connection with
 * `defineCommand`, so ioredis sends EVALSHA and falls back to EVAL after a script flush.
 */
const SCRIPTS = {
  seckill: "seckill-7.lua",
  release: "release-3.lua",
  adjustStock: "adjust-stock-1.lua",
  releaseReservation: "release-reservation-3.lua",
  repairStock: "repair-stock-3.lua",
  takeStock: "take-stock-2.lua",
  holding: "holding-2.lua",
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
  adjustStock(stockKey: string, delta: number): Promise<[number, number]>;
  releaseReservation(stockKey: string, usersKey: string, pendingKey: string, reservationId: string, userId: string): Promise<[number, number]>;
  takeStock(stockKey: string, pendingKey: string, reservationId: string): Promise<[number, number]>;
  holding(usersKey: string, holdsKey: string, ...argv: ["taken" | "released", userId: string, reservationId: string] | ["returned", userId: string]): Promise<number>;
  repairStock(
    stockKey: string,
    pendingKey: string,
    releasedKey: string,
    seenStock: number,
    seenPending: number,
    seenReleased: number,
    provenStock: number,
  ): Promise<number>;
}

export type AppRedis = Redis & SeckillCommands;

function scriptPath(file: string): string {
  // Resolved from the project root: web, worker, scripts and tests all run from there.
  return path.join(process.cwd(), "server", "seckill", file);
}

export function createRedis(url: string, options: RedisOptions = {}): AppRedis {
  const redis = new Redis(url, { enableAutoPipelining: true, ...options }) as AppRedis;
  for (const [name, file] of Object.entries(SCRIPTS)) {
    const numberOfKeys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
    redis.defineCommand(name, { numberOfKeys, lua: readFileSync(scriptPath(file), "utf8") });
  }
  return redis;
}
