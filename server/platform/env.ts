import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { z } from "zod";
import { DEFAULT_DOTLESS_DOMAINS, parseDotlessDomains } from "../lib/email-identity";
import { normalisePem } from "../lib/rsa-key";

/**
 * The one place configuration is read. Web, worker, scripts and tests all go through `readEnv`,
 * so every process agrees on names, defaults and validation.
 */

/** Development defaults, public in this repository: production refuses them (see the refinement below). */
export const DEV_SESSION_SECRET = "dev-only-session-secret-change-me-in-production-0123456789";
export const DEV_SANDBOX_PAY_KEY = "dev-only-sandbox-pay-key-0123456789abcdef";
export const DEV_SANDBOX_PAY_APP_ID = "sandbox-flash-sale";

/** Payment providers PAYMENT_PROVIDERS may name; each has an adapter in server/payments/. */
export const PAYMENT_PROVIDER_NAMES = ["alipay", "wechatpay", "sandbox"] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDER_NAMES)[number];

/**
 * PAYMENT_PROVIDERS' list, in the order checkout offers them: known names, each once. Empty: no
 * provider (payments are not set up). Pure, for env.test.ts.
 */
export function parsePaymentProviders(list: string): { providers: PaymentProviderName[] } | { problem: string } {
  const providers: PaymentProviderName[] = [];
  for (const entry of list.split(",").map((e) => e.trim().toLowerCase())) {
    if (!entry) continue;
    if (!(PAYMENT_PROVIDER_NAMES as readonly string[]).includes(entry)) {
      return { problem: `PAYMENT_PROVIDERS: unknown provider "${entry}" (choose from ${PAYMENT_PROVIDER_NAMES.join(", ")})` };
    }
    const name = entry as PaymentProviderName;
    if (providers.includes(name)) return { problem: `PAYMENT_PROVIDERS: ${name} is listed twice` };
    providers.push(name);
  }
  return { providers };
}

/** Each provider's variables, all required when PAYMENT_PROVIDERS lists it. */
const PROVIDER_VARIABLES = {
  alipay: ["ALIPAY_APP_ID", "ALIPAY_PRIVATE_KEY", "ALIPAY_PUBLIC_KEY"],
  wechatpay: [
    "WECHATPAY_MCH_ID",
    "WECHATPAY_APP_ID",
    "WECHATPAY_SERIAL_NO",
    "WECHATPAY_PRIVATE_KEY",
    "WECHATPAY_APIV3_KEY",
    "WECHATPAY_PLATFORM_PUBLIC_KEY",
    "WECHATPAY_PLATFORM_PUBLIC_KEY_ID",
  ],
} as const;
const PRIVATE_KEYS = new Set(["ALIPAY_PRIVATE_KEY", "WECHATPAY_PRIVATE_KEY"]);
const PUBLIC_KEYS = new Set(["ALIPAY_PUBLIC_KEY", "WECHATPAY_PLATFORM_PUBLIC_KEY"]);
const KEY_FORMS = "PEM, or the bare base64 body the provider's key tool prints";

/** An identifier a provider issued (app id, merchant id, serial number, key id): no spaces, no quotes. */
const providerId = z
  .string()
  .trim()
  .transform((value) => value || undefined)
  .pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be the identifier the provider issued (letters, digits, _ . -)")
      .optional(),
  )
  .optional();
/** A key's text, as the env holds it; read and checked once the providers are known. */
const keyText = z
  .string()
  .transform((value) => value.trim() || undefined)
  .optional();

/** A Redis Cluster seed node, as ioredis's Cluster takes it. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** A text variable, empty meaning unset; never trimmed (a password may end in a space). */
const optionalText = z
  .string()
  .optional()
  .transform((value) => value || undefined);

/** Why `file` is not a readable PEM certificate file, or undefined when it is one. */
function pemCertificateProblem(file: string): string | undefined {
  if (!existsSync(file)) return `no such file: ${file}`;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return text.includes("-----BEGIN CERTIFICATE-----") ? undefined : `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`;
}

const intFrom = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** Most orders per group commit, and so most reservations one create-order job carries. */
export const MAX_ORDER_BATCH_SIZE = 1000;

/**
 * REQUIRED in production: what a deploy must set. A production process refuses to start on the
 * public development defaults (SESSION_SECRET, the sandbox's key and app id) or without the
 * variables of a provider PAYMENT_PROVIDERS lists; the URLs' defaults only fit one machine.
 */
const requiredInProduction = {
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^(mysql|mariadb):\/\//, "DATABASE_URL must look like mysql://user:pass@host:3306/db")
    .default("mysql://root@127.0.0.1:3306/flashsale"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "REDIS_URL must look like redis://host:6379/0")
    .default("redis://127.0.0.1:6379/0"),
  /**
   * Redis Cluster seed nodes, `host:port,host:port`: when set, every connection is a Cluster
   * client discovering the rest from these, and REDIS_URL is not used. Empty: one Redis at REDIS_URL.
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .default("")
    .transform((list, ctx) => {
      if (!list.trim()) return [];
      const nodes: ClusterNode[] = [];
      for (const entry of list.split(",").map((e) => e.trim())) {
        const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(entry);
        const port = Number(match?.[2]);
        if (!match || port < 1 || port > 65535) {
          ctx.addIssue({ code: "custom", message: `REDIS_CLUSTER_NODES must be host:port,host:port (got "${entry}")` });
          return z.NEVER;
        }
        nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ""), port });
      }
      return nodes;
    }),
  SESSION_SECRET: z.string().min(32, "SESSION_SECRET must be at least 32 characters").default(DEV_SESSION_SECRET),
  /**
   * Keys the hash real-name identities are stored as (server/gateway/real-name.ts). Without it
   * the key is derived from SESSION_SECRET, so rotating that would split a person's accounts.
   */
  REAL_NAME_KEY_SECRET: z.string().min(32, "REAL_NAME_KEY_SECRET must be at least 32 characters").optional(),
  /** Where payment providers reach this app (their notify callbacks); default http://127.0.0.1:PORT. */
  PUBLIC_BASE_URL: z.url().optional(),
  /**
   * The built-in sandbox payment provider: its merchant app id and HMAC-SHA256 key. It is a demo
   * (anyone may "pay" on its page), so the dev key is fine wherever the sandbox is fine.
   */
  SANDBOX_PAY_APP_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .default(DEV_SANDBOX_PAY_APP_ID),
  SANDBOX_PAY_KEY: z.string().min(32, "SANDBOX_PAY_KEY must be at least 32 characters").default(DEV_SANDBOX_PAY_KEY),
  /**
   * The payment providers checkout offers, in order (`alipay`, `wechatpay`, `sandbox`; comma
   * list). Default: the sandbox outside production, none in production (order.pay then answers
   * that payments are not set up). Production refuses the sandbox on its public dev key or app id.
   */
  PAYMENT_PROVIDERS: z
    .string()
    .optional()
    .transform((list, ctx) => {
      if (list === undefined) return undefined;
      const parsed = parsePaymentProviders(list);
      if ("providers" in parsed) return parsed.providers;
      ctx.addIssue({ code: "custom", message: parsed.problem.replace(/^PAYMENT_PROVIDERS: /, "") });
      return z.NEVER;
    }),
  /**
   * Alipay (open platform, RSA2): the app's id, the app's private key, Alipay's public key (not
   * the app's).
   */
  ALIPAY_APP_ID: providerId,
  ALIPAY_PRIVATE_KEY: keyText,
  ALIPAY_PUBLIC_KEY: keyText,
  /**
   * WeChat Pay APIv3: the merchant id, the app id it pays for, the merchant API certificate's
   * serial number and private key, the APIv3 key (32 bytes, decrypts notifies), the WeChat Pay
   * public key and its id (PUB_KEY_ID_…, verifies answers and notifies).
   */
  WECHATPAY_MCH_ID: providerId,
  WECHATPAY_APP_ID: providerId,
  WECHATPAY_SERIAL_NO: providerId,
  WECHATPAY_PRIVATE_KEY: keyText,
  WECHATPAY_APIV3_KEY: z
    .string()
    .transform((value) => value || undefined)
    .pipe(
      z
        .string()
        .refine((value) => Buffer.byteLength(value, "utf8") === 32, "must be exactly 32 bytes (the APIv3 key set in the merchant platform)")
        .optional(),
    )
    .optional(),
  WECHATPAY_PLATFORM_PUBLIC_KEY: keyText,
  WECHATPAY_PLATFORM_PUBLIC_KEY_ID: providerId,
};

/** DEPLOYMENT: facts of a deployment, set when it has them (ports, proxies, an admin, a migration job). */
const deploymentFacts = {
  /** Prefix of every Redis key this deployment owns (seckill keys and BullMQ queues). */
  REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("fs"),
  PORT: intFrom(3000, 1),
  /**
   * The seckill service's own port: `npm run seckill` listens there; `npm start` puts its first
   * seckill service there (the next ones above it) when set, and picks free ports when not.
   */
  SECKILL_PORT: intFrom(3200, 1),
  /**
   * The address every process's own port binds (web, seckill service, worker metrics): loopback,
   * so only a front door on this machine reaches them. Containers set 0.0.0.0.
   */
  LISTEN_HOST: z.string().min(1).default("127.0.0.1"),
  /** The address `npm start`'s front door binds on PORT (every interface: it is the shop's door). */
  FRONT_DOOR_HOST: z.string().min(1).default("0.0.0.0"),
  /** Alipay's gateway: its sandbox's to try a sandbox account, a local fake's in tests. */
  ALIPAY_GATEWAY: z.url().default("https://openapi.alipay.com/gateway.do"),
  /** WeChat Pay's API address (tests point it at a local fake). */
  WECHATPAY_BASE_URL: z.url().default("https://api.mch.weixin.qq.com"),
  /**
   * Proxies in front of this process that append the address they saw to X-Forwarded-For (0:
   * clients connect to it directly); the client's address is the entry that many from the right.
   */
  TRUSTED_PROXY_HOPS: intFrom(0, 0),
  /** Rate limits on Upstash's REST API instead of the local Redis, when both are set. */
  UPSTASH_REDIS_REST_URL: z.url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  /** The worker's /metrics port (0: none); a port already taken is logged and the worker runs on. */
  WORKER_METRICS_PORT: intFrom(9464, 0),
  /** Bearer token an operator or scraper from a public address sends for /api/metrics and /api/health (private addresses need none). */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  /**
   * Start-up applies pending migrations under the database lock (1), or only waits, bounded by
   * MIGRATE_WAIT_SECONDS, for a migration job to have applied them (0).
   */
  MIGRATE_ON_START: z.enum(["0", "1"]).default("1"),
  /** An admin account start-up ensures (created, or made an admin with this password), when both are set. */
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8, "ADMIN_PASSWORD must be at least 8 characters").optional(),
  // Managed Redis: credentials, TLS and a Redis of the queues' own (deploy.md "Managed Redis").
  /**
   * A Redis of the BullMQ queues' own (`redis://` or `rediss://`, credentials in the URL): every
   * Queue and Worker connects there; stock, reservations, limits, sessions and pub/sub stay on
   * REDIS_URL / the Cluster. Unset: the queues share that Redis.
   */
  REDIS_QUEUE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, "REDIS_QUEUE_URL must look like redis://user:pass@host:6379/0")
      .optional(),
  ),
  /** PEM file of the private CA a TLS Redis's certificate is signed by, for every TLS connection (`rediss://`, REDIS_CLUSTER_TLS). */
  REDIS_TLS_CA_FILE: optionalText.transform((file, ctx) => {
    if (file === undefined) return undefined;
    const problem = pemCertificateProblem(file);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
    return file;
  }),
  /** The Cluster nodes' ACL user and password (REDIS_URL carries its own in the URL). */
  REDIS_CLUSTER_USERNAME: optionalText,
  REDIS_CLUSTER_PASSWORD: optionalText,
  /** The Cluster nodes speak TLS (1), verified against the system CAs or REDIS_TLS_CA_FILE. */
  REDIS_CLUSTER_TLS: z.enum(["0", "1"]).default("0"),
  /**
   * The mail server verification links go out through (`smtp://user:pass@host:587`, `smtps://…`
   * for TLS from the start). Unset: each link is written to the process's log instead (a developer's
   * machine; production logs a warning at start, see docs/operations.md).
   */
  SMTP_URL: optionalText.pipe(
    z
      .string()
      .regex(/^smtps?:\/\//, "SMTP_URL must look like smtp://user:pass@host:587 or smtps://host:465")
      .optional(),
  ),
  /** The sender of the shop's mail, an address or `Name <address>`. */
  MAIL_FROM: z.string().min(3).default("Flash Sale <no-reply@flash-sale.test>"),
};

/** TUNING: knobs an operator may tune; each says its default and when to change it. */
const tuningKnobs = {
  /**
   * A client that has not sent a whole request head this long after connecting (slowloris) is
   * cut, at `npm start`'s front door and the seckill service. Raise only for very slow networks.
   */
  HEADERS_TIMEOUT_MS: intFrom(10_000, 1000),
  /** Likewise for a whole request, body included (a body trickled in to hold a connection). */
  REQUEST_TIMEOUT_MS: intFrom(30_000, 1000),
  /** An idle keep-alive connection to `npm start`'s front door is closed after this long. */
  FRONT_DOOR_IDLE_TIMEOUT_MS: intFrom(15_000, 1000),
  /**
   * Connections one client address may hold open to `npm start`'s front door at once (0: no cap);
   * beyond it a request is answered 429 and its connection closed. Counted only with
   * TRUSTED_PROXY_HOPS=0: behind a proxy every connection comes from the proxy, which caps them.
   * High enough for hundreds of shoppers behind one carrier-NAT address.
   */
  FRONT_DOOR_CONNECTIONS_PER_IP: intFrom(512, 0),
  /** How long a sign-in lasts (7 days). Change with the shop's session policy. */
  SESSION_TTL_SECONDS: intFrom(7 * 24 * 3600, 60),
  /** How long a mailed verification link stays good (24 h). Change with the shop's account policy. */
  CONTACT_VERIFICATION_TTL_SECONDS: intFrom(24 * 3600, 60),
  /** How long a shopper has to pay an order before it is cancelled (30 min). Change for the shop's payment window. */
  ORDER_PAY_TIMEOUT_SECONDS: intFrom(1800, 1),
  /**
   * How often the worker sweeps for unpaid orders past their deadline (the backstop for lost timers).
   * Lower only if overdue orders must close sooner than a minute after a lost timer.
   */
  ORDER_SWEEP_INTERVAL_SECONDS: intFrom(60, 1),
  /**
   * A payment notification whose own timestamp is further than this from now is refused as stale.
   * Raise if a provider's clock or retries arrive later than 5 minutes.
   */
  PAYMENT_NOTIFY_MAX_AGE_SECONDS: intFrom(300, 1),
  /**
   * How long processed notify ids are kept, so a provider's retry of one is answered `success`
   * again (Alipay retries over ~25 h, WeChat Pay ~24 h); the worker prunes older ones hourly.
   * Raise if a provider retries past two days.
   */
  PAYMENT_NOTIFY_KEEP_HOURS: intFrom(48, 1),
  /**
   * How long past an order's pay deadline the timer keeps asking an unreachable provider before
   * it cancels anyway (the trade is closed on the sweep's next success; a payment found then is
   * refunded). Safe because checkout's time_expire is the deadline: the provider refuses to
   * take money after it.
   * Raise where provider outages last longer than 15 minutes.
   */
  PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: intFrom(900, 0),
  /**
   * Notify requests per second per client address (providers send bursts; 0 turns the limit off).
   * Raise if a provider's notify bursts are refused (429).
   */
  NOTIFY_RATE_PER_IP: intFrom(200, 0),
  /**
   * Group commit: most reservations written in one MySQL transaction (and carried by one
   * create-order job), and how long the worker waits to fill a transaction. 50 ms, not 5: with
   * a short wait a backlog of small jobs drained in ever smaller batches. A full batch still
   * commits at once.
   * Change only with a bench run showing the drain rate (bench/README.md).
   */
  ORDER_BATCH_SIZE: z.coerce.number().int().min(1).max(MAX_ORDER_BATCH_SIZE).default(200),
  ORDER_BATCH_WAIT_MS: intFrom(50, 0),
  /**
   * How long a web process collects reservations into one create-order job. The purchase does
   * not wait for it (server/seckill/enqueue.ts); it is how late the worker hears of an order.
   * Change only with a bench run (bench/README.md).
   */
  ORDER_ENQUEUE_WAIT_MS: intFrom(20, 0),
  /**
   * create-order jobs (each up to ORDER_BATCH_SIZE reservations) one worker process holds at
   * once; their reservations wait in the group commit. Enough that small jobs (a quiet minute)
   * still fill a batch.
   * Lower on a small worker host; raise with a bench run.
   */
  WORKER_CONCURRENCY: intFrom(400, 1),
  /**
   * How long a job may be held by a dead worker before BullMQ hands it to another one.
   * Lower for a faster hand-over of a dead worker's jobs (the tests do); at most the longest job.
   */
  WORKER_LOCK_MS: intFrom(30_000, 1000),
  /** How often a worker looks for jobs whose lock lapsed (30 s); change with WORKER_LOCK_MS. */
  WORKER_STALLED_INTERVAL_MS: intFrom(30_000, 500),
  /**
   * On SIGTERM, how long a worker waits for the jobs in its hands (their batch committed) before
   * it exits and leaves the rest to another worker once their lock lapses. The manifests'
   * termination grace periods are this plus a margin (deploy/deploy-files.test.ts checks them).
   */
  WORKER_DRAIN_TIMEOUT_MS: intFrom(40_000, 1000),
  /** MySQL connections each process opens (10). Raise with MariaDB's max_connections in mind. */
  DB_POOL_SIZE: intFrom(10, 1),
  /**
   * A Redis command not answered in this time fails, and the purchase path fails closed.
   * Raise only for a Redis known to answer slowly but surely.
   */
  REDIS_COMMAND_TIMEOUT_MS: intFrom(1000, 50),
  /**
   * Requests per second per client IP at the gateway (proxy.ts); 0 turns the limit off.
   * Lower under abuse; 0 for a load test from one address.
   */
  REQUEST_RATE_PER_IP: intFrom(100, 0),
  /**
   * Open live-update streams (room.onStatus, seckill.onResult) per shopper in one web process; more are refused (429).
   * A shopper needs one or two tabs; 0 turns the cap off.
   */
  STREAMS_PER_SHOPPER: intFrom(4, 0),
  /**
   * Open live-update streams per client address (an IPv6 /64) in one web process, whichever shoppers; 0 turns the cap off.
   * Hundreds of shoppers may share a carrier-NAT address: raise rather than lower.
   */
  STREAMS_PER_IP: intFrom(1000, 0),
  /**
   * The longest one stream lives (in its last quarter, at random); then it is ended and the page's EventSource reconnects.
   * Bounds what an abandoned but still connected page holds.
   */
  STREAM_MAX_LIFETIME_SECONDS: intFrom(600, 1),
  /**
   * Purchase calls per second per shopper (token calls hand out the same token again); 0 turns the limit off.
   * 0 for a load test replaying tokens.
   */
  PURCHASE_RATE_PER_SHOPPER: intFrom(5, 0),
  /**
   * Failed sign-ins per account in a lockout window before that account's sign-ins are refused until the window ends.
   * Change with the shop's sign-in policy.
   */
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: intFrom(5, 1),
  /**
   * Failed sign-ins per client address (an IPv6 /64) in a lockout window, whichever accounts they tried.
   * Raise where many shoppers share one address (a campus, a carrier NAT).
   */
  SIGN_IN_MAX_FAILURES_PER_IP: intFrom(50, 1),
  /**
   * The lockout window: it starts at the first counted failure and ends this long after, whatever happens in it.
   * Change with the shop's sign-in policy.
   */
  SIGN_IN_LOCKOUT_SECONDS: intFrom(900, 1),
  /**
   * Sign-ups per client address (an IPv6 /64) in SIGN_UP_ADDRESS_WINDOW_SECONDS, counted before the password is hashed; 0 = off.
   * Raise where many shoppers sign up from one address (a campus, a carrier NAT).
   */
  SIGN_UP_MAX_PER_ADDRESS: intFrom(5, 0),
  /** The address's sign-up window (an hour), from its first counted sign-up. */
  SIGN_UP_ADDRESS_WINDOW_SECONDS: intFrom(3600, 1),
  /**
   * Sign-ups per browser (its signed device cookie) in SIGN_UP_DEVICE_WINDOW_SECONDS; sign-ups without a valid
   * cookie share one such allowance per address. 0 = off. Change with the shop's sign-up policy.
   */
  SIGN_UP_MAX_PER_DEVICE: intFrom(3, 0),
  /** The device's sign-up window (a day), from its first counted sign-up. */
  SIGN_UP_DEVICE_WINDOW_SECONDS: intFrom(86_400, 1),
  /**
   * Mail domains that ignore dots in an address's local part (comma-separated): their addresses are compared without them.
   * googlemail.com reads as gmail.com. Applies to addresses canonicalised from then on (sign-ups; rows filled at migration).
   */
  EMAIL_DOTLESS_DOMAINS: z.string().default(DEFAULT_DOTLESS_DOMAINS.join(",")).transform(parseDotlessDomains),
  /**
   * Password hashes (sign-up, sign-in, admin:create) a process runs at once, off the event loop; the rest wait their turn.
   * Default: the cores less one for the loop, at most 3 (libuv's pool of 4 also serves files and DNS).
   */
  PASSWORD_HASH_CONCURRENCY: intFrom(Math.min(3, Math.max(1, availableParallelism() - 1)), 1),
  /** Password hashes that may wait for a turn; one more is refused at once with 503 and Retry-After. */
  PASSWORD_HASH_QUEUE_LIMIT: intFrom(100, 0),
  /** How long a password hash waits for its turn before it is refused with 503 and Retry-After. */
  PASSWORD_HASH_WAIT_MS: intFrom(10_000, 1),
  /** How long a purchase token stays good (30 s). Raise only if purchases arrive later than that. */
  PURCHASE_TOKEN_TTL_SECONDS: intFrom(30, 1),
  /**
   * How long an in-process sold-out flag answers alone; then one call asks Redis whether it still holds, the flag answering meanwhile.
   * Lower if a restocked sale must be seen sooner; 0 asks Redis every time.
   */
  SOLD_OUT_FLAG_TTL_MS: intFrom(2000, 0),
  /**
   * How long start-up waits for another process's migration (its lock, or the migration job).
   * Raise if migrations take longer than 5 minutes.
   */
  MIGRATE_WAIT_SECONDS: intFrom(300, 1),
  /**
   * Reservations of one sale that may wait for MySQL (an outage, a stalled worker) before
   * purchases fail closed with "orders are backing up"; 0 = no bound.
   * Lower to fail closed sooner during a MySQL outage.
   */
  MAX_ORDER_BACKLOG: intFrom(50_000, 0),
  /**
   * How often the worker reconciles live sales (check-back, invariants, repairs, re-warm).
   * Lower to repair lost Redis state sooner, at more load on MySQL.
   */
  RECONCILE_INTERVAL_MS: intFrom(10_000, 200),
  /**
   * A reservation pending longer than this is checked back (its order, its job).
   * Raise if create-order jobs routinely wait longer than a minute.
   */
  RESERVATION_CHECK_AFTER_MS: intFrom(60_000, 0),
  /**
   * Re-enqueues of one reservation's lost or failed job before check-back releases its unit.
   * Rarely: more retries before a lost reservation's unit goes back on sale.
   */
  RESERVATION_MAX_REQUEUES: intFrom(3, 0),
  /**
   * After a sale's end plus this, a reservation with no order is released rather than retried.
   * Rarely: how long after a sale orders may still be created.
   */
  RESERVATION_RELEASE_GRACE_MS: intFrom(3_600_000, 0),
  /** Log level (info): debug to see each group commit, warn for a quieter bench. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
};

/** DEV-only: a developer's demo; production turns it off. */
const devOnlySettings = {
  /** `npm start` on a database with no open sale creates a demo sale; set 0 in production. */
  DEMO_SALE: z.enum(["0", "1"]).default("1"),
};

/** Tracing (server/platform/tracing.ts): off by default; the OTEL_* names are OpenTelemetry's own where it has one. */
const tracingSettings = {
  /** Share of purchases traced, 0 to 1 (0: off, no SDK loaded); a trace continues where it began. */
  OTEL_TRACES_SAMPLER_RATIO: z.coerce.number().min(0).max(1).default(0),
  /** The service name spans carry; unset, each process names itself (flash-sale-web, -seckill, -worker). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** OTLP/HTTP collector base URL (traces go to its /v1/traces); unset with the next: no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** OTLP/HTTP traces URL, used as given; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
};

/** Each variable's section, for env.test.ts and anyone listing them. */
export const ENV_SECTIONS = {
  required: Object.keys(requiredInProduction),
  deployment: Object.keys(deploymentFacts),
  tuning: Object.keys(tuningKnobs),
  devOnly: Object.keys(devOnlySettings),
  tracing: Object.keys(tracingSettings),
};

const envSchema = z
  .object({ ...requiredInProduction, ...deploymentFacts, ...tuningKnobs, ...devOnlySettings, ...tracingSettings })
  .transform((value, ctx) => {
    const providers = value.PAYMENT_PROVIDERS ?? (value.NODE_ENV === "production" ? [] : (["sandbox"] as PaymentProviderName[]));
    const keys: Partial<Record<string, string>> = {};
    // Every provider listed must be usable, in every process, or the process does not start.
    for (const provider of providers) {
      if (provider === "sandbox") continue;
      for (const variable of PROVIDER_VARIABLES[provider]) {
        const given = value[variable];
        if (given === undefined) {
          ctx.addIssue({ code: "custom", path: [variable], message: `is required when PAYMENT_PROVIDERS lists ${provider}` });
          continue;
        }
        if (!PRIVATE_KEYS.has(variable) && !PUBLIC_KEYS.has(variable)) continue;
        const kind = PRIVATE_KEYS.has(variable) ? "private" : "public";
        const pem = normalisePem(given, kind);
        if (pem) keys[variable] = pem;
        else ctx.addIssue({ code: "custom", path: [variable], message: `is not a readable RSA ${kind} key (${KEY_FORMS})` });
      }
    }
    return {
      ...value,
      ...keys,
      PAYMENT_PROVIDERS: providers,
      PUBLIC_BASE_URL: (value.PUBLIC_BASE_URL ?? `http://127.0.0.1:${value.PORT}`).replace(/\/+$/, ""),
      WECHATPAY_BASE_URL: value.WECHATPAY_BASE_URL.replace(/\/+$/, ""),
    };
  })
  .superRefine((value, ctx) => {
    if (value.NODE_ENV !== "production") return;
    // These defaults are published in this repository: with them anyone signs sessions or payments.
    const refuse = (variable: string, message: string) => ctx.addIssue({ code: "custom", path: [variable], message });
    if (value.SESSION_SECRET === DEV_SESSION_SECRET)
      refuse("SESSION_SECRET", "is the public development default; set your own (32+ random characters) in production");
    if (!value.PAYMENT_PROVIDERS.includes("sandbox")) return;
    const orDisable = "or leave sandbox out of PAYMENT_PROVIDERS";
    if (value.SANDBOX_PAY_KEY === DEV_SANDBOX_PAY_KEY)
      refuse(
        "SANDBOX_PAY_KEY",
        `is the public development default, with which anyone can forge a payment; set your own (32+ random characters), ${orDisable}`,
      );
    if (value.SANDBOX_PAY_APP_ID === DEV_SANDBOX_PAY_APP_ID)
      refuse("SANDBOX_PAY_APP_ID", `is the public development default; set your own app id, ${orDisable}`);
  });

export type Env = z.infer<typeof envSchema>;

let loadedDotEnv = false;
function loadDotEnvOnce() {
  // Next.js loads .env itself; the worker and scripts run under plain Node, so load it here too.
  // Variables already set in the environment win.
  if (loadedDotEnv) return;
  loadedDotEnv = true;
  if (existsSync(".env")) process.loadEnvFile(".env");
}

/** A configuration no process may run on; its message is one line naming each variable. */
export class EnvError extends Error {
  override name = "EnvError";
}

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  if (source === process.env) loadDotEnvOnce();
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new EnvError(`Invalid environment: ${problems}`);
  }
  return parsed.data;
}

let cached: Env | undefined;
/**
 * The process's own configuration, read once. A process cannot run on an invalid one, so it stops
 * here, whatever its entry point (npm start, the worker, the seckill service, Next's
 * instrumentation.ts): one line naming the variables on stderr, exit code 1, no stack trace.
 */
export function env(): Env {
  if (cached) return cached;
  try {
    cached = readEnv();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  return cached;
}
