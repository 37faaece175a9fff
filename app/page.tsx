import { getServices } from "@/server/composition";
import { listSales, type SaleView } from "@/server/seckill/catalog";
import { createLogger } from "@/server/platform/logger";
import { Storefront } from "./_components/storefront";

export const dynamic = "force-dynamic";

/** The catalog, rendered with the sales and the server's clock so the countdowns show at once. */
export default async function HomePage() {
  const renderedAt = Date.now();
  let initialSales: SaleView[] | undefined;
  try {
    initialSales = await listSales(await getServices(), new Date(renderedAt));
  } catch (error) {
    // The page still works: the client asks again, and says so if that fails too.
    createLogger("web").warn({ err: error }, "catalog: server-side reading failed; the browser will load it");
  }
  return <Storefront initialSales={initialSales} renderedAt={renderedAt} />;
}
