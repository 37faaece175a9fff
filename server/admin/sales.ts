import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { createLogger } from "../platform/logger";
import { createSaleIn } from "./new-sale";
import { phaseAt, type SalePhase } from "../seckill/phase";
import { bucketKeys } from "../sale-redis/keys";
import { warmUpSale, type WarmUpServices } from "../warmup/warmup";
import {
  REAL_NAME_ONE_BUCKET,
  saleTerms,
  START_IN_PAST,
  startIsInPast,
  type NewSaleInput,
  type SaleEditInput,
  type SaleTerms,
} from "./sale-form";
import { sentence } from "../platform/sentences/sentence";

// Made on first use: creating it reads the environment, which a build must not need.
let log: ReturnType<typeof createLogger> | undefined;

/** A sale as the operator sees it: every field the form edits, plus where it stands. */
export interface AdminSale {
  id: number;
  productId: number;
  productName: string;
  description: string;
  imageUrl: string | null;
  originalPriceCents: number;
  priceCents: number;
  totalStock: number;
  unitLimit: number;
  requireRealName: boolean;
  minMemberLevel: number;
  requireVerifiedContact: boolean;
  /** Accounts created at or after this moment may not buy; null = any account. */
  accountsCreatedBefore: Date | null;
  /** Redis stock buckets (fixed at creation). */
  stockBuckets: number;
  /** Waiting room: places admitted per second; 0 = no waiting room. */
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  /** Proof-of-work challenge before buying (only with a waiting room). */
  purchaseChallenge: boolean;
  startsAt: Date;
  endsAt: Date;
  phase: SalePhase;
  /** Loaded into Redis (a warm-up ran); purchases need it. */
  warmedUp: boolean;
  /** Units still to sell: Redis's count once loaded (what shoppers can take), else MySQL's. */
  remaining: number;
  /** Units taken: in an order, or reserved on their way to one. */
  sold: number;
  /** Live with nothing left: shown as SOLD OUT rather than LIVE. */
  soldOut: boolean;
}

const adminSaleSelect = {
  id: true,
  productId: true,
  priceCents: true,
  totalStock: true,
  unitLimit: true,
  requireRealName: true,
  minMemberLevel: true,
  requireVerifiedContact: true,
  accountsCreatedBefore: true,
  stockBuckets: true,
  admissionRate: true,
  arrivalOrder: true,
  purchaseChallenge: true,
  startsAt: true,
  endsAt: true,
  stock: { select: { count: true } },
  product: { select: { name: true, description: true, originalPriceCents: true, imageUrl: true } },
} as const;

type AdminSaleRow = Omit<
  AdminSale,
  "productName" | "description" | "imageUrl" | "originalPriceCents" | "phase" | "warmedUp" | "remaining" | "sold" | "soldOut"
> & {
  stock: { count: number } | null;
  product: { name: string; description: string; originalPriceCents: number; imageUrl: string | null };
};

export type AdminSaleServices = Pick<Services, "db" | "env" | "redis">;

/** Each bucket's meta (loaded) and stock key, read in one pipeline for the whole list. */
async function redisStandings(
  services: Pick<Services, "env" | "redis">,
  rows: readonly AdminSaleRow[],
): Promise<Array<{ warmed: boolean; stock: number | null }>> {
  const pipeline = services.redis.pipeline();
  for (const row of rows) {
    for (let b = 0; b < row.stockBuckets; b++) {
      const keys = bucketKeys(services.env.REDIS_NAMESPACE, row.id, b);
      pipeline.exists(keys.meta);
      pipeline.get(keys.stock);
    }
  }
  const replies = (await pipeline.exec()) ?? [];
  let at = 0;
  return rows.map((row) => {
    let warmed = true;
    let stock = 0;
    for (let b = 0; b < row.stockBuckets; b++) {
      const [, exists] = replies[at++] ?? [];
      const [, value] = replies[at++] ?? [];
      if (exists !== 1 || value === null || value === undefined) warmed = false;
      else stock += Number(value);
    }
    return { warmed, stock: warmed ? stock : null };
  });
}

async function toAdminSales(services: Pick<Services, "env" | "redis">, rows: AdminSaleRow[], now: Date): Promise<AdminSale[]> {
  const standings = await redisStandings(services, rows);
  return rows.map(({ product, stock, ...row }, i) => {
    const { warmed, stock: redisStock } = standings[i]!;
    const remaining = Math.max(0, redisStock ?? stock?.count ?? row.totalStock);
    const phase = phaseAt(row, now);
    return {
      ...row,
      productName: product.name,
      description: product.description,
      imageUrl: product.imageUrl,
      originalPriceCents: product.originalPriceCents,
      phase,
      warmedUp: warmed,
      remaining,
      sold: Math.max(0, row.totalStock - remaining),
      soldOut: phase === "LIVE" && remaining === 0,
    };
  });
}

/** Every sale, newest first. */
export async function listAdminSales(services: AdminSaleServices, now = new Date()): Promise<AdminSale[]> {
  const rows = await services.db.sale.findMany({ select: adminSaleSelect, orderBy: { id: "desc" }, take: 200 });
  return toAdminSales(services, rows, now);
}

const saleMissing = (saleId: number) =>
  new AppError(
    "NOT_FOUND",
    sentence((s) => s.common.saleNumberDoesNotExist(saleId)),
  );

export async function getAdminSale(services: AdminSaleServices, saleId: number, now = new Date()): Promise<AdminSale> {
  const row = await services.db.sale.findUnique({ where: { id: saleId }, select: adminSaleSelect });
  if (!row) throw saleMissing(saleId);
  const [sale] = await toAdminSales(services, [row], now);
  return sale!;
}

/**
 * Loads a saved sale into Redis. A failure does not undo the save: the reconciler loads any sale
 * not in Redis once it opens (server/recovery/reconcile.ts), and web instances ask it to.
 */
async function warmAfterSave(services: WarmUpServices, saleId: number): Promise<boolean> {
  try {
    await warmUpSale(services, saleId);
    return true;
  } catch (error) {
    (log ??= createLogger("web")).warn(
      { saleId, err: error },
      "warm-up after saving the sale failed; the reconciler loads it when it opens",
    );
    return false;
  }
}

/** A new product with its sale and stock row, loaded into Redis at once so it sells from its opening. */
export async function createSaleFromForm(services: WarmUpServices, input: NewSaleInput, now = new Date()): Promise<AdminSale> {
  if (startIsInPast(input.startsAt, now)) throw new AppError("BAD_REQUEST", START_IN_PAST);
  const { saleId } = await services.db.$transaction(async (tx) => {
    const created = await createSaleIn(tx, {
      ...input,
      requireVerifiedContact: input.requireVerifiedContact ?? services.env.NODE_ENV === "production",
    });
    if (input.imageUrl) await tx.product.update({ where: { id: created.productId }, data: { imageUrl: input.imageUrl } });
    return created;
  });
  await warmAfterSave(services, saleId);
  // warmedUp false: saved, but not loaded yet (the console says it will be before the opening).
  return getAdminSale(services, saleId);
}

/**
 * Changes a sale's terms and its product's details (not its stock: see ./stock.ts), then loads
 * them into Redis, which keeps the window, limit and eligibility it was loaded with until then.
 * When that load fails the old terms are dropped from Redis, so no purchase runs on them: the
 * reconciler loads the new ones (the sale's edited start included) before shoppers buy again.
 */
export async function updateSale(services: WarmUpServices, input: SaleEditInput, now = new Date()): Promise<AdminSale> {
  const { saleId, ...edited } = input;
  await services.db.$transaction(async (tx) => {
    const sale = await tx.sale.findUnique({ where: { id: saleId }, include: { product: true } });
    if (!sale) throw saleMissing(saleId);
    const stored: SaleTerms = {
      productName: sale.product.name,
      description: sale.product.description,
      imageUrl: sale.product.imageUrl,
      originalPriceCents: sale.product.originalPriceCents,
      priceCents: sale.priceCents,
      unitLimit: sale.unitLimit,
      startsAt: sale.startsAt,
      endsAt: sale.endsAt,
      requireRealName: sale.requireRealName,
      requireVerifiedContact: sale.requireVerifiedContact,
      accountsCreatedBefore: sale.accountsCreatedBefore,
      minMemberLevel: sale.minMemberLevel,
      admissionRate: sale.admissionRate,
      arrivalOrder: sale.arrivalOrder,
      purchaseChallenge: sale.purchaseChallenge,
    };
    const defined = Object.fromEntries(Object.entries(edited).filter(([, value]) => value !== undefined));
    // The fields' own rules held at the input; the rules between fields hold for the merged whole.
    const { productName, description, imageUrl, originalPriceCents, ...terms } = saleTerms.parse({ ...stored, ...defined });
    if (startIsInPast(terms.startsAt, now, sale.startsAt)) throw new AppError("BAD_REQUEST", START_IN_PAST);
    if (terms.requireRealName && sale.stockBuckets > 1) throw new AppError("BAD_REQUEST", REAL_NAME_ONE_BUCKET);
    await tx.sale.update({ where: { id: saleId }, data: terms });
    await tx.product.update({ where: { id: sale.productId }, data: { name: productName, description, originalPriceCents, imageUrl } });
  });
  const warmed = await warmAfterSave(services, saleId);
  if (!warmed) await dropLoadedTerms(services, saleId);
  return getAdminSale(services, saleId);
}

/** Removes the sale's loaded terms (each bucket's meta), keeping its stock counts. */
async function dropLoadedTerms(services: AdminSaleServices, saleId: number): Promise<void> {
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { stockBuckets: true } });
  const keys = Array.from({ length: sale?.stockBuckets ?? 1 }, (_, b) => bucketKeys(services.env.REDIS_NAMESPACE, saleId, b).meta);
  // One DEL per key: on Redis Cluster each bucket has its own hash tag.
  await Promise.all(keys.map((key) => services.redis.del(key))).catch(() => undefined);
}
