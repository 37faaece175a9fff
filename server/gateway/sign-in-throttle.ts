import { createHash } from "node:crypto";
import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { BUSY } from "../platform/common-sentences";
import type { Localized } from "../platform/i18n";
import { rateLimitKey } from "./client-ip";
import { canonicalEmail, DEFAULT_DOTLESS_DOMAINS } from "../lib/email-identity";
import { sentence } from "../platform/sentences/sentence";
import type { Sentences } from "../platform/sentences/en";

/**
 * The sign-in throttle: failed sign-ins are counted per account and per client address in Redis
 * (count-in-window-1.lua), each in a lockout window that starts at its first failure; once
 * either count reaches its limit, sign-ins for that account, or from that address, are refused
 * until the window ends. The unit is taken BEFORE the password is checked (and given back when
 * it was right), so guesses in parallel, in a batch or from many addresses reach the password check
 * at most the limit's number of times per window, and cost no more CPU than that.
 */

export type ThrottleScope = "account" | "address";

/** One counter's answer: whether it counted this attempt, and what is left of its window. */
export interface CounterAnswer {
  taken: boolean;
  windowLeftMs: number;
}

export type ThrottleVerdict =
  { allowed: true } | { allowed: false; scope: ThrottleScope; retryAfterSeconds: number; giveBack: ThrottleScope[] };

/**
 * Both counters' answers as one verdict: refused when either is spent (the account named first,
 * the longer wait given), and then the unit the other one took is to be given back, so a refused
 * attempt counts nowhere.
 */
export function throttleVerdict(account: CounterAnswer, address: CounterAnswer): ThrottleVerdict {
  if (account.taken && address.taken) return { allowed: true };
  const spent = [account, address].filter((answer) => !answer.taken);
  // A window that ended between the two commands has nothing left to wait: say one second.
  const retryAfterSeconds = Math.max(1, ...spent.map((answer) => Math.ceil(answer.windowLeftMs / 1000)));
  const giveBack: ThrottleScope[] = account.taken ? ["account"] : address.taken ? ["address"] : [];
  return { allowed: false, scope: account.taken ? "address" : "account", retryAfterSeconds, giveBack };
}

/** A wait as a person reads it: seconds under a minute, whole minutes (rounded up) after. */
export function waitIn(s: Sentences, seconds: number): string {
  return seconds < 60 ? s.common.seconds(seconds) : s.common.minutes(Math.ceil(seconds / 60));
}

/** The same wait in every language. */
export function waitText(seconds: number): Localized {
  return sentence((s) => waitIn(s, seconds));
}

export function throttleMessage(scope: ThrottleScope, retryAfterSeconds: number): Localized {
  return sentence((s) => s.gateway.tooManyFailedSignIns(scope, waitIn(s, retryAfterSeconds)));
}

/**
 * The counters' keys: an account by a hash of its email's canonical form (known or not, alike: every
 * spelling of one mailbox shares its count), an address as the per-IP request rate counts it.
 */
export function throttleKeys(
  namespace: string,
  email: string,
  clientAddress: string,
  dotlessDomains: readonly string[] = DEFAULT_DOTLESS_DOMAINS,
): Record<ThrottleScope, string> {
  const account = createHash("sha256").update(canonicalEmail(email, dotlessDomains)).digest("hex").slice(0, 32);
  return { account: `${namespace}:signin:{account:${account}}`, address: `${namespace}:signin:{ip:${rateLimitKey(clientAddress)}}` };
}

/** A sign-in attempt let through the throttle. */
export interface SignInAttempt {
  /** Uncounts it (a right password, or a fault of ours): never fails, a unit left counted ends with its window. */
  giveBack(): Promise<void>;
}

/**
 * Counts a sign-in attempt for `email` from `clientAddress`, or throws TOO_MANY_REQUESTS (with
 * Retry-After) when either window is spent. Both counters go to Redis in one write; without an
 * answer the sign-in fails closed (SERVICE_UNAVAILABLE), never unthrottled.
 */
export async function takeSignInAttempt(
  services: Pick<Services, "env" | "metrics" | "redis">,
  email: string,
  clientAddress: string,
): Promise<SignInAttempt> {
  const { env, redis } = services;
  const keys = throttleKeys(env.REDIS_NAMESPACE, email, clientAddress, env.EMAIL_DOTLESS_DOMAINS);
  const windowMs = env.SIGN_IN_LOCKOUT_SECONDS * 1000;
  const giveBack = (scopes: readonly ThrottleScope[]) =>
    Promise.all(scopes.map((scope) => redis.countInWindow(keys[scope], "give-back"))).then(
      () => {},
      () => {},
    );
  let answers: [number, number][];
  try {
    answers = await Promise.all([
      redis.countInWindow(keys.account, "take", env.SIGN_IN_MAX_FAILURES_PER_ACCOUNT, windowMs),
      redis.countInWindow(keys.address, "take", env.SIGN_IN_MAX_FAILURES_PER_IP, windowMs),
    ]);
  } catch (cause) {
    throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause });
  }
  const [account, address] = answers.map(([taken, windowLeftMs]): CounterAnswer => ({ taken: taken === 1, windowLeftMs }));
  const verdict = throttleVerdict(account!, address!);
  if (!verdict.allowed) {
    await giveBack(verdict.giveBack);
    services.metrics.rateLimited.inc({ scope: `sign-in-${verdict.scope}` });
    throw new AppError("TOO_MANY_REQUESTS", throttleMessage(verdict.scope, verdict.retryAfterSeconds), {
      retryAfterSeconds: verdict.retryAfterSeconds,
    });
  }
  return { giveBack: () => giveBack(["account", "address"]) };
}
