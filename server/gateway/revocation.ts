import type { Localized } from "../platform/i18n";
import type { Env } from "../platform/env";
import type { RedisConnection } from "../clients/redis";
import type { AppRedis } from "../platform/redis-scripts";
import { createLogger } from "../platform/logger";
import { AppError } from "../platform/errors";
import { credentialFrom, verifySession, type HeaderReader, type Session } from "./session";
import { sentence } from "../platform/sentences/sentence";

/**
 * Revocable sessions, without a store read per request. A revocation ends every session of one
 * user signed before it: revoke-sessions-2.lua gives the user a fresh epoch (Redis's clock in ms,
 * only ever growing) in a sorted set, and a session carries the epoch in force when it was signed
 * (its generation, session-epoch-2.lua); a session older than its user's latest revocation has
 * ended. Each process keeps the set in memory (SessionRevocations): the revoking process applies
 * it at once, a pub/sub message brings it to the others within milliseconds, and every process
 * reads the set again every REFRESH_MS from the last epoch it read, so a lost message still lands
 * within a second. Checking a session is a Map lookup: the purchase path gains no Redis call.
 * Entries (in Redis and in memory) last as long as a session can, then go.
 */

export const SESSION_ENDED_MESSAGE: Localized = sentence((s) => s.gateway.sessionEnded);

/** How often every process reads the revocations added since its last read. */
export const REFRESH_MS = 1000;
/** How often the in-memory entries older than any live session are dropped. */
const PRUNE_EVERY_MS = 60_000;
/** Clocks of the signing process and Redis may disagree this much; entries are kept that much longer. */
const CLOCK_MARGIN_MS = 60_000;

/** Pure: whether a revocation at epoch `revokedAt` (none: undefined) ends a session of that user. */
export function hasEnded(session: Pick<Session, "generation">, revokedAt: number | undefined): boolean {
  return revokedAt !== undefined && session.generation < revokedAt;
}

/** How long a revocation matters: until every session it could end has expired. */
export function revocationLifetimeMs(env: Pick<Env, "SESSION_TTL_SECONDS">): number {
  return env.SESSION_TTL_SECONDS * 1000 + CLOCK_MARGIN_MS;
}

/** This process's copy of the revocations: userId -> epoch of the latest, one entry per user. */
export class SessionRevocations {
  private readonly revokedAt = new Map<number, number>();
  private readUpTo = 0;

  constructor(
    private readonly lifetimeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  hasEnded(session: Session): boolean {
    return hasEnded(session, this.revokedAt.get(session.userId));
  }

  /** A revocation heard of (made here, pushed, or read); an older one than known changes nothing. */
  apply(userId: number, epoch: number): void {
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(epoch)) return;
    const known = this.revokedAt.get(userId);
    if (known === undefined || epoch > known) this.revokedAt.set(userId, epoch);
  }

  /** Entries read from Redis in epoch order: the next read starts after the last of them. */
  applyRead(entries: readonly (readonly [userId: number, epoch: number])[]): void {
    for (const [userId, epoch] of entries) {
      this.apply(userId, epoch);
      this.readUpTo = Math.max(this.readUpTo, epoch);
    }
  }

  /** The latest epoch read from Redis (not pushed: a lost push may lie between pushed ones). */
  get readEpoch(): number {
    return this.readUpTo;
  }

  /** Drops the entries whose sessions have all expired, so memory stays bounded by one lifetime. */
  prune(): void {
    const before = this.now() - this.lifetimeMs;
    for (const [userId, epoch] of this.revokedAt) if (epoch < before) this.revokedAt.delete(userId);
  }

  get size(): number {
    return this.revokedAt.size;
  }
}

/** The Redis keys and channel of the revocations; one hash tag, so both scripts run on a Cluster. */
export function revocationKeys(namespace: string) {
  const base = `${namespace}:sessions:{revocations}`;
  return { users: `${base}:users`, epoch: `${base}:epoch`, channel: `${namespace}:sessions:revoked` };
}

type RevocationServices = { redis: AppRedis; env: Env; sessions: SessionRevocations };

/**
 * Ends every session of `userId` signed until now, on every process within REFRESH_MS (at once
 * here; by pub/sub elsewhere, within milliseconds): for sign-out, demotion, blacklisting and a
 * password change. Call it after the change it follows is committed, so a sign-in in between
 * reads the changed account.
 */
export async function revokeSessions(services: RevocationServices, userId: number): Promise<void> {
  const { redis, env, sessions } = services;
  const keys = revocationKeys(env.REDIS_NAMESPACE);
  let epoch: number;
  try {
    epoch = Number(await redis.revokeSessions(keys.users, keys.epoch, String(userId), revocationLifetimeMs(env)));
  } catch (cause) {
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      sentence((s) => s.gateway.sessionsNotEnded),
      { cause },
    );
  }
  sessions.apply(userId, epoch);
  // Best effort: a process that misses it reads the set within REFRESH_MS.
  await redis.publish(keys.channel, `${userId}:${epoch}`).catch(() => 0);
}

/**
 * The generation to sign a new session with. Read BEFORE the account is read for it, so that a
 * revocation racing a sign-in (a demotion committed after the sign-in read the role) is later
 * than the session's generation and ends it.
 */
export async function sessionGeneration(services: Pick<RevocationServices, "redis" | "env">): Promise<number> {
  const keys = revocationKeys(services.env.REDIS_NAMESPACE);
  return Number(await services.redis.sessionEpoch(keys.epoch, keys.users));
}

/** The revocations added since the last read, oldest first; all of them on the first read. */
async function readRevocations(redis: AppRedis, env: Env, sessions: SessionRevocations): Promise<void> {
  const from = sessions.readEpoch === 0 ? "-inf" : `(${sessions.readEpoch}`;
  const flat = await redis.zrangebyscore(revocationKeys(env.REDIS_NAMESPACE).users, from, "+inf", "WITHSCORES");
  const entries: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push([Number(flat[i]), Number(flat[i + 1])]);
  sessions.applyRead(entries);
}

/** A pushed revocation, `<userId>:<epoch>`; anything else is ignored. */
export function parseRevocationMessage(raw: string): { userId: number; epoch: number } | null {
  const match = /^(\d{1,15}):(\d{1,16})$/.exec(raw);
  return match ? { userId: Number(match[1]), epoch: Number(match[2]) } : null;
}

/**
 * Keeps `sessions` in step with Redis: one read now (awaited, so a process starts knowing every
 * revocation), then a read of what is new every REFRESH_MS, and, given a subscriber connection,
 * the pushes. A failed read is retried at the next tick. Returns the stop function.
 */
export async function followRevocations(
  redis: AppRedis,
  env: Env,
  sessions: SessionRevocations,
  subscriber?: RedisConnection,
): Promise<() => void> {
  let reading = false;
  let stopped = false;
  let lastFailureLog = 0;
  const read = async () => {
    if (reading || stopped) return;
    reading = true;
    try {
      await readRevocations(redis, env, sessions);
    } catch (error) {
      if (!stopped && Date.now() - lastFailureLog > 10_000) {
        lastFailureLog = Date.now();
        createLogger("services").warn({ err: error }, "could not read session revocations; retrying");
      }
    } finally {
      reading = false;
    }
  };
  await read();
  const refresh = setInterval(() => void read(), REFRESH_MS);
  const prune = setInterval(() => sessions.prune(), PRUNE_EVERY_MS);
  refresh.unref();
  prune.unref();
  if (subscriber) {
    const { channel } = revocationKeys(env.REDIS_NAMESPACE);
    subscriber.on("message", (from, raw) => {
      if (from !== channel) return;
      const message = parseRevocationMessage(raw);
      if (message) sessions.apply(message.userId, message.epoch);
    });
    await subscriber.subscribe(channel);
  }
  return () => {
    stopped = true;
    clearInterval(refresh);
    clearInterval(prune);
  };
}

/** Who is asking: a live session, none, or one that has ended (a revocation; the caller says so). */
export type Caller = { session: Session; ended: false } | { session: null; ended: boolean };

const ANONYMOUS: Caller = { session: null, ended: false };
const ENDED: Caller = { session: null, ended: true };

/** The caller a credential proves, revocations included: what every front door asks. */
export async function callerFrom(services: { env: Env; sessions: SessionRevocations }, credential: string | null): Promise<Caller> {
  const session = credential ? await verifySession(credential, services.env.SESSION_SECRET) : null;
  if (!session) return ANONYMOUS;
  return services.sessions.hasEnded(session) ? ENDED : { session, ended: false };
}

/** callerFrom for a request's headers (Bearer first, then the session cookie). */
export function callerOf(services: { env: Env; sessions: SessionRevocations }, headers: HeaderReader): Promise<Caller> {
  return callerFrom(services, credentialFrom(headers));
}
