/**
 * npx tsx bench/password-hashing.ts [--signups N] [--concurrency C]
 *
 * What N sign-ups' password hashes at once do to a process's event loop: bcryptjs on the loop
 * (the code before issue #41) against the PasswordHasher the app uses now (scrypt on libuv's pool,
 * C at once). Prints each one's event-loop delay (p50, p99, max) while the hashes run, how long
 * the whole crowd took, and hashes per second. Run it on an otherwise quiet machine.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import bcrypt from "bcryptjs";
import { PasswordHasher } from "../server/gateway/password-hasher";
import { env } from "../server/platform/env";

const { values } = parseArgs({ options: { signups: { type: "string", default: "60" }, concurrency: { type: "string" } } });
const signups = Number(values.signups);
const concurrency = values.concurrency ? Number(values.concurrency) : env().PASSWORD_HASH_CONCURRENCY;

async function measure(name: string, hashAll: () => Promise<unknown>) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  await hashAll();
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const ms = (ns: number) => (ns / 1e6).toFixed(0);
  console.log(
    `${name.padEnd(44)} loop delay p50 ${ms(delay.percentile(50)).padStart(5)} ms, p99 ${ms(delay.percentile(99)).padStart(5)} ms, max ${ms(delay.max).padStart(5)} ms; ` +
      `${signups} hashes in ${seconds.toFixed(1)} s (${(signups / seconds).toFixed(1)}/s)`,
  );
}

const passwords = Array.from({ length: signups }, (_, i) => `crowd-password-${i}`);
console.log(`${signups} sign-ups at once, ${concurrency} scrypt hashes at a time`);
await measure("bcryptjs cost 10, on the event loop (before)", () => Promise.all(passwords.map((password) => bcrypt.hash(password, 10))));
const hasher = new PasswordHasher({ concurrency, queueLimit: signups, waitMs: 600_000 });
try {
  await measure("scrypt N=2^14 r=8 p=5, PasswordHasher (now)", () => Promise.all(passwords.map((password) => hasher.hash(password))));
} finally {
  await hasher.close();
}
