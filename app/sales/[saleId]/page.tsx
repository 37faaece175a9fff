import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getServices } from "@/server/composition";
import { getSale } from "@/server/seckill/catalog";
import { AppError } from "@/server/platform/errors";
import { saleIdInput } from "@/server/trpc/schemas";
import { SaleDetail } from "../../_components/sale-detail";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ saleId: string }> };

/** The sale as MySQL and Redis have it now, or null for an id that names no sale. */
async function loadSale(param: string) {
  const parsed = saleIdInput.safeParse({ saleId: Number(param) });
  if (!parsed.success) return null;
  try {
    return await getSale(await getServices(), parsed.data.saleId);
  } catch (error) {
    if (error instanceof AppError && error.code === "NOT_FOUND") return null;
    throw error;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const sale = await loadSale((await params).saleId);
  return { title: sale ? `${sale.productName} · Flash Sale` : "Flash Sale" };
}

/** Rendered on the server with the sale's first state; the client keeps stock and countdown live. */
export default async function SalePage({ params }: Params) {
  const renderedAt = Date.now();
  const sale = await loadSale((await params).saleId);
  if (!sale) notFound();
  return <SaleDetail initialSale={sale} renderedAt={renderedAt} />;
}
