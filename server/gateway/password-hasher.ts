import path from "node:path";
import PQueue from "p-queue";
import { Piscina } from "piscina";
import { AppError } from "../platform/errors";
import type { Localized } from "../platform/i18n";
import { fitsBcrypt, parseStoredHash, scryptHash, verifyScrypt, type ScryptCost, SCRYPT_COST } from "./password-hash";
import { sentence } from "../platform/sentences/sentence";

/**
 * Where a process hashes and checks passwords: never on the event loop (scrypt on libuv's pool,
 * an old bcrypt hash on a worker thread), and at most `concurrency` at once, so a crowd of
 * sign-ups leaves the loop and the cores free for everything else. Past that a hash waits its
 * turn, up to `waitMs` and behind at most `queueLimit` others; beyond either it is refused with
 * 503 and a Retry-After, never queued without bound.
 */
export interface PasswordHasherOptions {
  concurrency: number;
  queueLimit: number;
  waitMs: number;
  cost?: ScryptCost;
}

/** Run in a worker thread: bcryptjs is pure JavaScript and would hold the loop for a whole check. */
const BCRYPT_WORKER = path.join(process.cwd(), "server/gateway/bcrypt-compare.worker.mjs");

export function passwordsBusy(retryAfterSeconds: number): Localized {
  return sentence((s) => s.gateway.passwordsBusy(retryAfterSeconds));
}

/** How long the hashes ahead of a newcomer should take: the whole line, `concurrency` at a time. */
export function hashWaitSeconds(ahead: number, concurrency: number, hashMs: number): number {
  return Math.max(1, Math.ceil((Math.ceil((ahead + 1) / concurrency) * hashMs) / 1000));
}

export class PasswordHasher {
  private readonly queue: PQueue;
  private readonly bcrypt: Piscina;
  private readonly cost: ScryptCost;
  /** A running average of one hash's duration, for Retry-After. */
  private hashMs = 500;

  constructor(private readonly options: PasswordHasherOptions) {
    this.queue = new PQueue({ concurrency: options.concurrency });
    // No threads until an old hash needs one; they go again when idle.
    this.bcrypt = new Piscina({ filename: BCRYPT_WORKER, minThreads: 0, maxThreads: options.concurrency, idleTimeout: 30_000 });
    this.cost = options.cost ?? SCRYPT_COST;
  }

  /** A new stored hash for this password (scrypt, today's cost). */
  hash(password: string): Promise<string> {
    return this.admit(() => scryptHash(password, this.cost));
  }

  /** Whether `password` matches the stored hash, of either format; an unknown format matches nothing. */
  verify(password: string, stored: string): Promise<boolean> {
    const parsed = parseStoredHash(stored);
    if (parsed.scheme === "unknown") return Promise.resolve(false);
    if (parsed.scheme === "bcrypt" && !fitsBcrypt(password)) return Promise.resolve(false);
    return this.admit(() =>
      parsed.scheme === "scrypt" ? verifyScrypt(password, parsed) : (this.bcrypt.run({ password, hash: parsed.hash }) as Promise<boolean>),
    );
  }

  /** Hashes running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.queue.pending, waiting: this.queue.size };
  }

  async close(): Promise<void> {
    this.queue.clear();
    await this.bcrypt.destroy();
  }

  private refuse(): AppError {
    const retryAfterSeconds = hashWaitSeconds(this.queue.size, this.options.concurrency, this.hashMs);
    return new AppError("SERVICE_UNAVAILABLE", passwordsBusy(retryAfterSeconds), { retryAfterSeconds });
  }

  private async admit<T>(task: () => Promise<T>): Promise<T> {
    if (this.queue.pending >= this.options.concurrency && this.queue.size >= this.options.queueLimit) throw this.refuse();
    const gaveUp = new AbortController();
    // The wait is bounded, the hash once started is not: it finishes and its slot frees.
    const timer = setTimeout(() => gaveUp.abort(), this.options.waitMs);
    try {
      return await this.queue.add(
        async () => {
          clearTimeout(timer);
          const started = performance.now();
          try {
            return await task();
          } finally {
            this.hashMs = this.hashMs * 0.8 + (performance.now() - started) * 0.2;
          }
        },
        { signal: gaveUp.signal },
      );
    } catch (error) {
      if (gaveUp.signal.aborted) throw this.refuse();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
