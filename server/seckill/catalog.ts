import type { Services } from "../services";
import { AppError } from "../errors";
import { unitsLeftInRedis } from "./sale-buckets";
import { phaseAt, type SalePhase } from "./phase";


export interface SaleView {
  id: number;
  productId: number;
  productName: string;
  description: string;
  priceCents: number;
  originalPriceCents: number;
  totalStock: number;
  /** Units still reservable, from Redis; null when the sale is not warmed up. */
  stockLeft: number | null;
  perUserLimit: number;
  startsAt: Date;
  endsAt: Date;
  phase: SalePhase;
}


const saleSelect = {
  id: true,
  productId: true,
  priceCents: true,
  totalStock: true,
  perUserLimit: true,
  stockBuckets: true,
  startsAt: true,
  endsAt: true,
  product: { select: { name: true, description: true, originalPriceCents: true } },
} as const;

type SaleRow = {
  id: number;
  productId: number;
  priceCents: number;
  totalStock: number;
  perUserLimit: number;
  stockBuckets: number;
  startsAt: Date;
  endsAt: Date;
  product: { name: string; description: string; originalPriceCents: number };
};

async function toViews(services: Services, rows: SaleRow[], now: Date): Promise<SaleView[]> {
  const stocks = await Promise.all(rows.map((s) => unitsLeftInRedis(services, s.id, s.stockBuckets)));
  return rows.map((s, i) => {
    const stock = stocks[i];
    return {
      id: s.id,
      productId: s.productId,
      productName: s.product.name,
      description: s.product.description,
      priceCents: s.priceCents,
      originalPriceCents: s.product.originalPriceCents,
      totalStock: s.totalStock,
      stockLeft: stock === null || stock === undefined ? null : Number(stock),
      perUserLimit: s.perUserLimit,
      startsAt: s.startsAt,
      endsAt: s.endsAt,
      phase: phaseAt(s, now),
    };
  });
}

/** Sales shoppers can see: live ones first, then upcoming, then recently ended. */
export async function listSales(services: Services, now = new Date()): Promise<SaleView[]> {
  const rows = await services.db.sale.findMany({
    where: { state: "SCHEDULED" },
    select: saleSelect,
    orderBy: [{ startsAt: "asc" }],
    take: 50,
  });
  const order: Record<SalePhase, number> = { LIVE: 0, UPCOMING: 1, ENDED: 2 };
  const views = await toViews(services, rows, now);
  return views.sort((a, b) => order[a.phase] - order[b.phase]);
}

export async function getSale(services: Services, saleId: number, now = new Date()): Promise<SaleView> {
  const row = await services.db.sale.findFirst({ where: { id: saleId, state: "SCHEDULED" }, select: saleSelect });
  if (!row) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  const [view] = await toViews(services, [row], now);
  return view!;
}
