import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { unitsLeftInRedis } from "../sale-redis/sale-buckets";
import { bucketKeys } from "../sale-redis/keys";
import { phaseAt, type SalePhase } from "./phase";
import { sentence } from "../platform/sentences/sentence";

export interface SaleView {
  id: number;
  productId: number;
  productName: string;
  description: string;
  /** A picture of the product (a path under public/ or an absolute URL); null when it has none. */
  imageUrl: string | null;
  priceCents: number;
  originalPriceCents: number;
  totalStock: number;
  /** Units still reservable, from Redis; null when the sale is not warmed up. */
  stockLeft: number | null;
  /**
   * For a sold-out sale still on: units held but not paid for (reservations not yet orders, and
   * unpaid orders), which go back on sale if their time to pay runs out. 0 for any other sale.
   */
  unitsMayReturn: number;
  unitLimit: number;
  startsAt: Date;
  endsAt: Date;
  phase: SalePhase;
  /** The sale's waiting room (bought with tickets), or null: no room, bought with tokens. */
  room: SaleRoomView | null;
}

export interface SaleRoomView {
  /** places admitted per second */
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  /** a proof-of-work challenge is solved before buying */
  challenge: boolean;
}

/** The room a sale's settings give it: one exactly when the admission rate is above 0. */
export function saleRoom(sale: {
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  purchaseChallenge: boolean;
}): SaleRoomView | null {
  return sale.admissionRate > 0
    ? { admissionRate: sale.admissionRate, arrivalOrder: sale.arrivalOrder, challenge: sale.purchaseChallenge }
    : null;
}

const saleSelect = {
  id: true,
  productId: true,
  priceCents: true,
  totalStock: true,
  unitLimit: true,
  stockBuckets: true,
  startsAt: true,
  endsAt: true,
  admissionRate: true,
  arrivalOrder: true,
  purchaseChallenge: true,
  product: { select: { name: true, description: true, originalPriceCents: true, imageUrl: true } },
} as const;

type SaleRow = {
  id: number;
  productId: number;
  priceCents: number;
  totalStock: number;
  unitLimit: number;
  stockBuckets: number;
  startsAt: Date;
  endsAt: Date;
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  purchaseChallenge: boolean;
  product: { name: string; description: string; originalPriceCents: number; imageUrl: string | null };
};

async function toViews(services: Pick<Services, "db" | "env" | "redis">, rows: SaleRow[], now: Date): Promise<SaleView[]> {
  const stocks = await Promise.all(rows.map((s) => unitsLeftInRedis(services, s.id, s.stockBuckets)));
  // Only a sold-out sale still on is asked: the rest show their stock, and need no hope.
  const mayReturn = await Promise.all(
    rows.map((s, i) =>
      stocks[i] !== null && Number(stocks[i]) <= 0 && phaseAt(s, now) !== "ENDED" ? unitsMayReturn(services, s, now.getTime()) : 0,
    ),
  );
  return rows.map((s, i) => {
    const stock = stocks[i];
    return {
      id: s.id,
      productId: s.productId,
      productName: s.product.name,
      description: s.product.description,
      imageUrl: s.product.imageUrl,
      priceCents: s.priceCents,
      originalPriceCents: s.product.originalPriceCents,
      totalStock: s.totalStock,
      stockLeft: stock === null || stock === undefined ? null : Number(stock),
      unitsMayReturn: mayReturn[i] ?? 0,
      unitLimit: s.unitLimit,
      startsAt: s.startsAt,
      endsAt: s.endsAt,
      phase: phaseAt(s, now),
      room: saleRoom(s),
    };
  });
}

/**
 * How long a process reuses its count of a sold-out sale's unpaid units: the crowd that polls a
 * sold-out sale every 2 s costs MySQL one count per process per this, not one per shopper.
 */
const MAY_RETURN_FRESH_MS = 1000;
const mayReturnCounts = new WeakMap<object, Map<number, { at: number; units: Promise<number> }>>();

/** Pending reservations (Redis, every bucket) plus unpaid orders (MySQL, by the (sale, status) index). */
async function unitsMayReturn(
  services: Pick<Services, "db" | "env" | "redis">,
  sale: { id: number; stockBuckets: number },
  now: number,
): Promise<number> {
  const perSale = mayReturnCounts.get(services.db) ?? new Map<number, { at: number; units: Promise<number> }>();
  mayReturnCounts.set(services.db, perSale);
  const known = perSale.get(sale.id);
  if (known && now - known.at < MAY_RETURN_FRESH_MS) return known.units;
  const units = Promise.all([
    ...Array.from({ length: sale.stockBuckets }, (_, bucket) =>
      services.redis.zcard(bucketKeys(services.env.REDIS_NAMESPACE, sale.id, bucket).pending),
    ),
    services.db.order.count({ where: { saleId: sale.id, status: "WAIT_PAY" } }),
  ]).then(
    (counts) => counts.reduce((sum, n) => sum + n, 0),
    // The hope is a courtesy: a failed count shows a plain sell-out, is not kept, and the next poll asks again.
    () => {
      perSale.delete(sale.id);
      return 0;
    },
  );
  perSale.set(sale.id, { at: now, units });
  return units;
}

/** How long an ended sale stays in the catalog, and how many of those it shows. */
const ENDED_SHOWN_FOR_MS = 24 * 3600_000;
const ENDED_SHOWN = 10;

/**
 * Sales shoppers can see: live ones first, then upcoming, then recently ended. Open and ended
 * sales are read apart, so a pile of old sales never pushes a new one off the page.
 */
export async function listSales(services: Pick<Services, "db" | "env" | "redis">, now = new Date()): Promise<SaleView[]> {
  const [open, ended] = await Promise.all([
    services.db.sale.findMany({
      where: { state: "SCHEDULED", endsAt: { gt: now } },
      select: saleSelect,
      orderBy: [{ startsAt: "asc" }],
      take: 50,
    }),
    services.db.sale.findMany({
      where: { state: "SCHEDULED", endsAt: { lte: now, gt: new Date(now.getTime() - ENDED_SHOWN_FOR_MS) } },
      select: saleSelect,
      orderBy: [{ endsAt: "desc" }],
      take: ENDED_SHOWN,
    }),
  ]);
  const order: Record<SalePhase, number> = { LIVE: 0, UPCOMING: 1, ENDED: 2 };
  const views = await toViews(services, [...open, ...ended], now);
  return views.sort((a, b) => order[a.phase] - order[b.phase]);
}

export async function getSale(services: Pick<Services, "db" | "env" | "redis">, saleId: number, now = new Date()): Promise<SaleView> {
  const row = await services.db.sale.findFirst({ where: { id: saleId, state: "SCHEDULED" }, select: saleSelect });
  if (!row)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.common.saleWithdrawn),
    );
  const [view] = await toViews(services, [row], now);
  return view!;
}
