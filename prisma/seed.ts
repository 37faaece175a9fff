import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { env } from "../server/platform/env";
import { createServices } from "../server/composition";
import { createSale, createShoppers } from "../server/testing/seed";
import { warmUpSale } from "../server/warmup/warmup";
import { MAX_STOCK_BUCKETS } from "../server/sale-redis/buckets";
import { prepareDatabase, prepareEnvironment } from "../server/cli/prepare";

/**
 * npm run seed -- --users N --stock S [--unit-limit L] [--buckets K] [--starts-in SEC] [--duration SEC]
 *   [--admission-rate R [--arrival-order random|arrival] [--challenge]] --json FILE
 * Creates N shoppers and one warmed-up sale of S units (its Redis stock in K buckets, default 1);
 * writes ids and session tokens as JSON. `--unit-limit` is the units each shopper may hold (default
 * 1).
 *
 * It prepares the environment and the schema exactly as `npm start` does (server/cli/prepare.ts):
 * on a fresh clone it writes this machine's SESSION_SECRET into .env, or reads the one there, so
 * the tokens it signs are the ones a later (or running) `npm start` accepts.
 */
const USAGE =
  "usage: npm run seed -- --users N --stock S [--unit-limit L] [--buckets K] [--starts-in SEC] [--duration SEC] [--admission-rate R [--arrival-order random|arrival] [--challenge]] --json FILE";

function positiveInt(name: string, raw: string | undefined, fallback?: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined && fallback !== undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`--${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : " up"}\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

const { values } = parseArgs({
  options: {
    users: { type: "string" },
    stock: { type: "string" },
    "unit-limit": { type: "string" },
    buckets: { type: "string" },
    "starts-in": { type: "string" },
    duration: { type: "string" },
    "admission-rate": { type: "string" },
    "arrival-order": { type: "string" },
    challenge: { type: "boolean" },
    json: { type: "string" },
  },
});
if (!values.json) {
  console.error(`--json FILE is required\n${USAGE}`);
  process.exit(2);
}
const users = positiveInt("users", values.users);
const stock = positiveInt("stock", values.stock);
const unitLimit = positiveInt("unit-limit", values["unit-limit"], 1);
const buckets = positiveInt("buckets", values.buckets, 1, 1, MAX_STOCK_BUCKETS);
const startsIn = positiveInt("starts-in", values["starts-in"], 0, 0);
const duration = positiveInt("duration", values.duration, 3600);
// A waiting room (docs/architecture.md): places admitted per second, 0 = none.
const admissionRate = positiveInt("admission-rate", values["admission-rate"], 0, 0, 1_000_000);
const arrivalOrder = (values["arrival-order"] ?? "random").toUpperCase();
if (arrivalOrder !== "RANDOM" && arrivalOrder !== "ARRIVAL") {
  console.error(`--arrival-order is random or arrival, not "${values["arrival-order"]}"\n${USAGE}`);
  process.exit(2);
}
if ((values.challenge || values["arrival-order"]) && admissionRate === 0) {
  console.error(`--arrival-order and --challenge need a waiting room: --admission-rate R\n${USAGE}`);
  process.exit(2);
}

const log = (line: string) => console.log(`[seed] ${line}`);
prepareEnvironment(".env", log);
const config = env();
await prepareDatabase(config, log);
const services = await createServices(config);
try {
  const startsAt = new Date(Date.now() + startsIn * 1000);
  const { saleId, productId } = await createSale(services, {
    productName: `Seeded item (${stock} units)`,
    description: "Created by npm run seed.",
    priceCents: 9900,
    originalPriceCents: 19900,
    stock,
    unitLimit,
    stockBuckets: buckets,
    admissionRate,
    arrivalOrder,
    purchaseChallenge: values.challenge ?? false,
    startsAt,
    endsAt: new Date(startsAt.getTime() + duration * 1000),
  });
  const shoppers = await createShoppers(services, users);
  await warmUpSale(services, saleId);
  writeFileSync(values.json, JSON.stringify({ saleId, productId, users: shoppers.map(({ id, token }) => ({ id, token })) }));
  const room =
    admissionRate > 0
      ? `, a waiting room admitting ${admissionRate}/s (${arrivalOrder.toLowerCase()} order${values.challenge ? ", challenge on" : ""})`
      : "";
  console.log(
    `sale ${saleId} (${stock} units in ${buckets} bucket(s), starts ${startsAt.toISOString()}${room}), ${shoppers.length} shoppers -> ${values.json}`,
  );
} finally {
  await services.close();
}
