import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { BUSY } from "../platform/common-sentences";
import type { Localized } from "../platform/i18n";
import { rateLimitKey } from "./client-ip";
import { waitIn, type CounterAnswer } from "./sign-in-throttle";
import { sentence } from "../platform/sentences/sentence";

/**
 * The sign-up limit: sign-ups are counted per client address (as the per-IP rates key it) and
 * per browser device (its signed cookie, device-cookie.ts) in Redis (count-in-window-1.lua), each
 * in a window from its first sign-up. Counted BEFORE the password is hashed, the expensive part,
 * and kept whatever the answer, a sign-up refused as a duplicate included, so probing which
 * emails have accounts costs the same allowance as making them. A sign-up without a valid device
 * cookie counts against its address's one "no device" counter, held to the device allowance: a
 * client that drops cookies is one device per address, never an unlimited one.
 */

export type SignUpScope = "address" | "device";

export type SignUpVerdict = { allowed: true } | { allowed: false; scope: SignUpScope; retryAfterSeconds: number; giveBack: SignUpScope[] };

/**
 * The two counters' answers (null: that limit is off) as one verdict: refused when either is
 * spent (the address named first, the longer wait given), and the unit the other took goes back,
 * so a refused sign-up counts nowhere.
 */
export function signUpVerdict(address: CounterAnswer | null, device: CounterAnswer | null): SignUpVerdict {
  const spent = (["address", "device"] as const).filter((scope) => ({ address, device })[scope]?.taken === false);
  if (spent.length === 0) return { allowed: true };
  const retryAfterSeconds = Math.max(1, ...spent.map((scope) => Math.ceil({ address, device }[scope]!.windowLeftMs / 1000)));
  const giveBack = (["address", "device"] as const).filter((scope) => ({ address, device })[scope]?.taken === true);
  return { allowed: false, scope: spent[0]!, retryAfterSeconds, giveBack };
}

export function signUpRefusal(scope: SignUpScope, retryAfterSeconds: number): Localized {
  return sentence((s) => s.gateway.tooManySignUps(scope, waitIn(s, retryAfterSeconds)));
}

/** The counters' keys: the address as the per-IP rates count it; the device by its id, or the address's no-device counter. */
export function signUpKeys(namespace: string, clientAddress: string, device: string | null): Record<SignUpScope, string> {
  const address = rateLimitKey(clientAddress);
  return {
    address: `${namespace}:signup:{ip:${address}}`,
    device: device ? `${namespace}:signup:{device:${device}}` : `${namespace}:signup:{nodevice:${address}}`,
  };
}

/** A sign-up let through the limit. */
export interface SignUpAttempt {
  /** Uncounts it (a fault of ours, not the caller's): never fails. */
  giveBack(): Promise<void>;
}

/**
 * Counts a sign-up from `clientAddress` and `device` (null: no valid device cookie), or throws
 * TOO_MANY_REQUESTS with Retry-After when either window is spent. Without Redis's answer the
 * sign-up fails closed (SERVICE_UNAVAILABLE), never unlimited.
 */
export async function takeSignUp(
  services: Pick<Services, "env" | "metrics" | "redis">,
  clientAddress: string,
  device: string | null,
): Promise<SignUpAttempt> {
  const { env, redis } = services;
  const keys = signUpKeys(env.REDIS_NAMESPACE, clientAddress, device);
  const limits: Record<SignUpScope, { max: number; windowMs: number }> = {
    address: { max: env.SIGN_UP_MAX_PER_ADDRESS, windowMs: env.SIGN_UP_ADDRESS_WINDOW_SECONDS * 1000 },
    device: { max: env.SIGN_UP_MAX_PER_DEVICE, windowMs: env.SIGN_UP_DEVICE_WINDOW_SECONDS * 1000 },
  };
  const counted = (["address", "device"] as const).filter((scope) => limits[scope].max > 0);
  const giveBack = (scopes: readonly SignUpScope[]) =>
    Promise.all(scopes.map((scope) => redis.countInWindow(keys[scope], "give-back"))).then(
      () => {},
      () => {},
    );
  const answers: Record<SignUpScope, CounterAnswer | null> = { address: null, device: null };
  try {
    await Promise.all(
      counted.map(async (scope) => {
        const [taken, windowLeftMs] = await redis.countInWindow(keys[scope], "take", limits[scope].max, limits[scope].windowMs);
        answers[scope] = { taken: taken === 1, windowLeftMs };
      }),
    );
  } catch (cause) {
    await giveBack(counted.filter((scope) => answers[scope]?.taken));
    throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause });
  }
  const verdict = signUpVerdict(answers.address, answers.device);
  if (!verdict.allowed) {
    await giveBack(verdict.giveBack);
    services.metrics.rateLimited.inc({ scope: `sign-up-${verdict.scope}` });
    throw new AppError("TOO_MANY_REQUESTS", signUpRefusal(verdict.scope, verdict.retryAfterSeconds), {
      retryAfterSeconds: verdict.retryAfterSeconds,
    });
  }
  return { giveBack: () => giveBack(counted) };
}
