import path from "node:path";
import { createRedis, defineScripts, type RedisConnection, type RedisTarget, type ScriptCommandName } from "../clients/redis";
import type { RedisOptions } from "ioredis";
import { loadLua } from "../clients/lua-include";
import { luaEligibilityRefusals, withReplyCodes } from "../sale-redis/reply-codes";

/**
 * The Lua scripts, as files beside the code that calls them, by folder under server/: each
 * `<action>-<numKeys>.lua` like BullMQ's, run as `redis.<action in camelCase>` (`issue-token-5.lua`
 * is `redis.issueToken`). Lua they share lives in `includes/` folders, pulled in with
 * `--- @include "<file>"`; the reply codes come from TypeScript: `REPLY.<name>` becomes its number
 * at load, and the eligibility refusals are the generated include "@generated/eligibility-refusals.lua".
 * Resolved from the project root: web, worker, scripts and tests all run from there.
 */
export const SCRIPT_FILES = {
  seckill: [
    "issue-token-5.lua",
    "reserve-unit-7.lua",
    "reserve-unit-with-ticket-7.lua",
    "take-stock-2.lua",
    "adjust-home-count-2.lua",
    "settle-reservations-3.lua",
    "release-order-3.lua",
    "release-reservation-3.lua",
    "adjust-stock-2.lua",
  ],
  // The waiting room's join (server/room-join/join.ts).
  "room-join": ["join-room-4.lua"],
  // Only recovery reads the ledger whole and repairs it.
  recovery: ["read-ledger-3.lua", "repair-stock-4.lua"],
  // The gateway's: sign-in throttle, sign-up limit, session revocations (revocation.ts).
  gateway: ["count-in-window-1.lua", "revoke-sessions-2.lua", "session-epoch-2.lua"],
} as const;

/** Lua made from TypeScript, by the name the scripts include it as. */
export const GENERATED_INCLUDES = { "@generated/eligibility-refusals.lua": luaEligibilityRefusals() };

/** A script's text as Redis runs it: its includes expanded, the generated ones too, and its reply codes numbers. */
export function loadScript(file: string): string {
  return withReplyCodes(loadLua(file, GENERATED_INCLUDES));
}

/** Every script's path, relative to the project root. */
export function scriptPaths(): string[] {
  return Object.entries(SCRIPT_FILES).flatMap(([folder, files]) => files.map((file) => path.join("server", folder, file)));
}

/** The scripts as ioredis commands; argument order is each script's KEYS then ARGV. */
export interface SeckillCommands {
  issueToken(
    stockKey: string,
    metaKey: string,
    usersKey: string,
    eligibilityKey: string,
    tokenKey: string,
    userId: string,
    freshToken: string,
    ttlMs: number,
  ): Promise<[number, number, string?, number?]>;
  reserveUnit(
    stockKey: string,
    metaKey: string,
    usersKey: string,
    pendingKey: string,
    eligibilityKey: string,
    tokenKey: string,
    holdsKey: string,
    userId: string,
    reservationId: string,
    token: string,
    maxBacklog: number,
  ): Promise<[number, number]>;
  reserveUnitWithTicket(
    stockKey: string,
    metaKey: string,
    usersKey: string,
    pendingKey: string,
    eligibilityKey: string,
    holdsKey: string,
    spentTicketKey: string,
    userId: string,
    reservationId: string,
    admitAt: number,
    passWindowMs: number,
    maxBacklog: number,
  ): Promise<[number, number]>;
  joinRoom(
    metaKey: string,
    seatsKey: string,
    arrivalsKey: string,
    eligibilityKey: string,
    userId: string,
    again: "1" | "0",
  ): Promise<[number, number?, number?, string?, number?, number?, number?, number?, number?, number?, string?, string?]>;
  releaseOrder(stockKey: string, usersKey: string, releasedKey: string, orderId: string, userId: string): Promise<[number, number]>;
  adjustStock(stockKey: string, fenceKey: string, delta: number, seenFence: string): Promise<[number, number, number]>;
  releaseReservation(
    stockKey: string,
    usersKey: string,
    pendingKey: string,
    reservationId: string,
    userId: string,
    returnUnit: "1" | "0",
  ): Promise<[number, number]>;
  takeStock(stockKey: string, pendingKey: string, reservationId: string): Promise<[number, number]>;
  settleReservations(
    ordersKey: string,
    pendingKey: string,
    jobsKey: string,
    ...reservationAndOrderIds: (string | number)[]
  ): Promise<number>;
  readLedger(stockKey: string, pendingKey: string, releasedKey: string): Promise<[number, number, number, number]>;
  countInWindow(counterKey: string, ...argv: ["take", limit: number, windowMs: number] | ["give-back"]): Promise<[number, number]>;
  adjustHomeCount(
    usersKey: string,
    holdsKey: string,
    ...argv: ["taken" | "released", userId: string, reservationId: string] | ["returned", userId: string]
  ): Promise<number>;
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

// A file listed without a command here, or a command with no file, fails to compile.
type ListedCommand = ScriptCommandName<(typeof SCRIPT_FILES)[keyof typeof SCRIPT_FILES][number]>;
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyScriptTyped: SameKeys<ListedCommand, keyof SeckillCommands> = true;
void everyScriptTyped;

export type AppRedis = RedisConnection & SeckillCommands;

/** The command connection (writes coalesced per turn of the event loop) with the scripts defined on it. */
export function createAppRedis(target: RedisTarget, options: RedisOptions = {}): AppRedis {
  return defineScripts<SeckillCommands>(
    createRedis(target, options),
    scriptPaths().map((file) => path.join(process.cwd(), file)),
    loadScript,
  );
}
