import type { Services } from "../services";
import { AppError } from "../errors";
import { createSale } from "../seed";
import { phaseAt, type SalePhase } from "../seckill/phase";
import { saleKeys } from "../seckill/keys";
import type { NewSaleInput, SaleEditInput } from "./sale-form";

/** A sale as the operator sees it: every field the form edits, plus where it stands. */
export interface AdminSale {
  id: number;
  productId: number;
  productName: string;
  description: string;
  originalPriceCents: number;
  priceCents: number;
  totalStock: number;
  perUserLimit: number;
  requireRealName: boolean;
  minMemberLevel: number;
  /** Redis stock buckets (fixed at creation). */
  stockBuckets: number;
  startsAt: Date;
  endsAt: Date;
  phase: SalePhase;
  /** Loaded into Redis (a warm-up ran); purchases need it. */
  warmedUp: boolean;
}

const adminSaleSelect = {
  id: true,
  productId: true,
  priceCents: true,
  totalStock: true,
  perUserLimit: true,
  requireRealName: true,
  minMemberLevel: true,
  stockBuckets: true,
  startsAt: true,
  endsAt: true,
  product: { select: { name: true, description: true, originalPriceCents: true } },
} as const;

async function toAdminSales(
  services: Services,
  rows: Array<Omit<AdminSale, "productName" | "description" | "originalPriceCents" | "phase" | "warmedUp"> & { product: { name: string; description: string; originalPriceCents: number } }>,
  now: Date,
): Promise<AdminSale[]> {
  const warmed = await Promise.all(rows.map((r) => services.redis.exists(saleKeys(services.env.REDIS_NAMESPACE, r.id).meta)));
  return rows.map(({ product, ...row }, i) => ({
    ...row,
    productName: product.name,
    description: product.description,
    originalPriceCents: product.originalPriceCents,
    phase: phaseAt(row, now),
    warmedUp: warmed[i] === 1,
  }));
}

/** Every sale, newest first. */
export async function listAdminSales(services: Services, now = new Date()): Promise<AdminSale[]> {
  const rows = await services.db.sale.findMany({ select: adminSaleSelect, orderBy: { id: "desc" }, take: 200 });
  return toAdminSales(services, rows, now);
}

export async function getAdminSale(services: Services, saleId: number, now = new Date()): Promise<AdminSale> {
  const row = await services.db.sale.findUnique({ where: { id: saleId }, select: adminSaleSelect });
  if (!row) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  const [sale] = await toAdminSales(services, [row], now);
  return sale!;
}

/** A new product with its sale and stock row; it takes purchases once warmed up. */
export async function createSaleFromForm(services: Services, input: NewSaleInput): Promise<AdminSale> {
  const { saleId } = await createSale(services, input);
  return getAdminSale(services, saleId);
}

/**
 * Changes a sale's terms and its product's details (not its stock: see ./stock.ts). Redis keeps
 * the window, limit and eligibility it was warmed with until the next warm-up, which the answer
 * says (`warmedUp`), and the console offers.
 */
export async function updateSale(services: Services, input: SaleEditInput): Promise<AdminSale> {
  const { saleId, productName, description, originalPriceCents, ...terms } = input;
  await services.db.$transaction(async (tx) => {
    const sale = await tx.sale.findUnique({ where: { id: saleId }, select: { productId: true } });
    if (!sale) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
    await tx.sale.update({ where: { id: saleId }, data: terms });
    await tx.product.update({ where: { id: sale.productId }, data: { name: productName, description, originalPriceCents } });
  });
  return getAdminSale(services, saleId);
}
