import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { Services } from "../platform/services";
import { createSale, createShoppers, type SeededShopper } from "./seed";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { freePort } from "../lib/net";
import { TRPC_ENDPOINT } from "../platform/endpoints";
import { waitFor } from "./harness";

/**
 * Chaos-suite plumbing: a private redis-server the test may restart (the machine's shared Redis
 * is never touched), shoppers buying over HTTP, and the end-state check every scenario shares.
 */

export interface PrivateRedis {
  url: string;
  /** SIGKILL (no shutdown save) or SIGTERM (Redis fsyncs its AOF and exits), then start again. */
  restart(how: "kill" | "graceful"): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(options: { appendonly: boolean }): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "chaos-redis-"));
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}/0`;
  const launch = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        options.appendonly ? "yes" : "no",
        "--appendfsync",
        "everysec",
        "--maxmemory-policy",
        "noeviction",
        "--dir",
        dir,
        "--daemonize",
        "no",
      ],
      { stdio: "ignore" },
    );
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {});
    try {
      await waitFor(
        () =>
          probe
            .connect()
            .then(() => probe.ping())
            .then(
              (p) => p === "PONG",
              () => false,
            ),
        20_000,
        "the private redis-server",
      );
    } finally {
      probe.disconnect();
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise((resolve) => running.once("exit", resolve));
    running.kill(signal);
    await gone;
  };
  await launch();
  return {
    url,
    async restart(how) {
      await halt(how === "kill" ? "SIGKILL" : "SIGTERM");
      await launch();
    },
    async stop() {
      await halt("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Answer =
  | { kind: "queued"; reservationId: string }
  | { kind: "refused"; status: string }
  | { kind: "error"; httpStatus: number | null; message: string };

async function trpc(base: string, procedure: string, input: unknown, bearer: string) {
  const response = await fetch(`${base}/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ json: input }),
  });
  const body = (await response.json()) as { result?: { data: { json: Record<string, unknown> } }; error?: { json: { message: string } } };
  return { status: response.status, data: body.result?.data.json, message: body.error?.json.message ?? "" };
}

/**
 * One shopper presses Buy over HTTP: token, then purchase, at `base()` + `endpoint` (Next's tRPC,
 * or SECKILL_ENDPOINT on a seckill service). Transport failures are answers too.
 */
export async function buyOverHttp(base: () => string, saleId: number, shopper: SeededShopper, endpoint = TRPC_ENDPOINT): Promise<Answer> {
  try {
    const token = await trpc(`${base()}${endpoint}`, "seckill.token", { saleId }, shopper.token);
    if (!token.data) return { kind: "error", httpStatus: token.status, message: token.message };
    if (token.data.status !== "ISSUED") return { kind: "refused", status: String(token.data.status) };
    const bought = await trpc(`${base()}${endpoint}`, "seckill.purchase", { saleId, token: token.data.token }, shopper.token);
    if (!bought.data) return { kind: "error", httpStatus: bought.status, message: bought.message };
    if (bought.data.status === "QUEUED") return { kind: "queued", reservationId: String(bought.data.reservationId) };
    return { kind: "refused", status: String(bought.data.status) };
  } catch (error) {
    return { kind: "error", httpStatus: null, message: String(error) };
  }
}

/** Shoppers buy in waves of `wave` at once (a crowd, without exhausting sockets on 2 cores). */
export async function crowdBuys(
  base: () => string,
  saleId: number,
  shoppers: readonly SeededShopper[],
  wave = 25,
  endpoint = TRPC_ENDPOINT,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < shoppers.length; i += wave) {
    answers.push(...(await Promise.all(shoppers.slice(i, i + wave).map((s) => buyOverHttp(base, saleId, s, endpoint)))));
  }
  return answers;
}

export async function newChaosSale(services: Services, input: { stock: number; shoppers: number; name: string }) {
  const { saleId } = await createSale(services, {
    productName: `Chaos ${input.name}`,
    priceCents: 990,
    originalPriceCents: 1990,
    stock: input.stock,
    unitLimit: 1,
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + 3600_000),
  });
  await warmUpSale(services, saleId);
  const shoppers = await createShoppers(services, input.shoppers, { emailPrefix: `chaos-${input.name}-${saleId}` });
  return { saleId, shoppers };
}

export interface ChaosOutcome {
  queued: number;
  orders: number;
  released: number;
  /** Orders for reservations whose HTTP answer never arrived (the web died mid-request). */
  unansweredOrders: number;
  lostQueued: number;
  oversold: number;
  duplicateOrders: number;
  violations: string[];
  recoverySeconds: number;
}

/**
 * Waits until the sale is at rest and correct: invariants true, nothing pending, every QUEUED
 * answer ended as exactly one order or one release. Measures the time since `faultEndedAt`.
 */
export async function settleAndCheck(
  services: Services,
  saleId: number,
  answers: readonly Answer[],
  faultEndedAt: number,
  timeoutMs = 120_000,
): Promise<ChaosOutcome> {
  const queued = answers.flatMap((a) => (a.kind === "queued" ? [a.reservationId] : []));
  let outcome: ChaosOutcome | undefined;
  const check = async () => {
    const ledger = await readSaleLedger(services, saleId);
    const [orders, released] = await Promise.all([
      services.db.order.findMany({ where: { saleId }, select: { reservationId: true } }),
      services.db.releasedReservation.findMany({ where: { saleId }, select: { reservationId: true } }),
    ]);
    const ordered = new Set(orders.map((o) => o.reservationId));
    const releasedIds = new Set(released.map((r) => r.reservationId));
    const queuedSet = new Set(queued);
    outcome = {
      queued: queued.length,
      orders: orders.length,
      released: released.length,
      unansweredOrders: orders.filter((o) => !queuedSet.has(o.reservationId)).length,
      lostQueued: queued.filter((id) => ordered.has(id) === releasedIds.has(id)).length,
      oversold: Math.max(0, ledger.activeOrders - ledger.totalStock),
      duplicateOrders: orders.length - ordered.size,
      violations: invariantViolations(ledger),
      recoverySeconds: (Date.now() - faultEndedAt) / 1000,
    };
    return outcome.violations.length === 0 && ledger.pendingReservations === 0 && outcome.lostQueued === 0;
  };
  // A read that fails (Redis still restarting) is just "not yet".
  await waitFor(() => check().catch(() => false), timeoutMs, "the sale to settle").catch((error: unknown) => {
    throw new Error(`${String(error)}; last state ${JSON.stringify(outcome)}`);
  });
  return outcome!;
}

/** One line per scenario, for the run's log (the issue asks for the numbers and recovery time). */
export function report(scenario: string, outcome: ChaosOutcome): void {
  const line =
    `[chaos] ${scenario}: queued ${outcome.queued}, orders ${outcome.orders} (${outcome.unansweredOrders} for unanswered requests), ` +
    `released ${outcome.released}, lost ${outcome.lostQueued}, oversold ${outcome.oversold}, duplicates ${outcome.duplicateOrders}, ` +
    `recovered in ${outcome.recoverySeconds.toFixed(1)} s`;
  console.log(line);
  mkdirSync("test-results", { recursive: true });
  appendFileSync(path.join("test-results", "chaos-report.txt"), `${new Date().toISOString()} ${line}\n`);
}

/**
 * Buys for every shopper, asking again (after `pauseMs`) those whose request failed (a dead web
 * instance, a Redis restart, a full backlog), as a shopper's client would, until each has an
 * answer or `timeoutMs` runs out. Returns every shopper's last answer.
 */
export async function buyUntilAnswered(
  base: () => string,
  saleId: number,
  shoppers: readonly SeededShopper[],
  options: { timeoutMs?: number; pauseMs?: number } = {},
): Promise<{ answers: Answer[]; errors: number }> {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const last = new Map<number, Answer>();
  let waiting = [...shoppers];
  let errors = 0;
  while (waiting.length) {
    const answers = await crowdBuys(base, saleId, waiting);
    answers.forEach((a, i) => last.set(waiting[i]!.id, a));
    const failed = waiting.filter((_, i) => answers[i]!.kind === "error");
    errors += failed.length;
    waiting = failed;
    if (waiting.length && Date.now() > deadline) break;
    if (waiting.length) await new Promise((r) => setTimeout(r, options.pauseMs ?? 500));
  }
  return { answers: shoppers.map((s) => last.get(s.id)!), errors };
}

/** Test settings that make recovery quick enough to watch: short locks, frequent rounds. */
export const CHAOS_SETTINGS: Record<string, string> = {
  REQUEST_RATE_PER_IP: "0",
  PURCHASE_RATE_PER_SHOPPER: "0",
  RECONCILE_INTERVAL_MS: "1000",
  RESERVATION_CHECK_AFTER_MS: "3000",
  WORKER_LOCK_MS: "5000",
  WORKER_STALLED_INTERVAL_MS: "2000",
  ORDER_BATCH_SIZE: "5",
  WORKER_CONCURRENCY: "5",
  ORDER_BATCH_WAIT_MS: "20",
  DB_POOL_SIZE: "4",
};
