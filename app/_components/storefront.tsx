"use client";
import { useQuery } from "@tanstack/react-query";
import type { SaleView } from "@/server/seckill/catalog";
import { useMessages } from "../_i18n/client";
import { errorText } from "./errors";
import { SaleCard } from "./sale-card";
import { useTRPC } from "./trpc";

/**
 * The catalog: every sale, live ones first, stock refreshed from Redis every 2 s. The server's
 * first reading (and its clock) renders at once; without one the list loads here.
 */
export function Storefront({ initialSales, renderedAt }: { initialSales?: SaleView[]; renderedAt?: number }) {
  const t = useMessages();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const sales = useQuery({ ...trpc.sale.list.queryOptions(), initialData: initialSales, refetchInterval: 2000 });

  return (
    <div>
      <h1>{t.todaysSales}</h1>
      {sales.isError ? (
        <p className="status bad" role="alert">
          {t.couldNotLoadSales(errorText(sales.error, t))}
        </p>
      ) : null}
      {sales.isPending ? (
        <p className="muted" role="status">
          {t.loadingSales}
        </p>
      ) : null}
      {sales.data?.length === 0 ? <p className="muted">{t.noSales}</p> : null}
      <div className="grid">
        {sales.data?.map((sale) => (
          <SaleCard key={sale.id} sale={sale} signedIn={Boolean(me.data)} renderedAt={renderedAt} />
        ))}
      </div>
    </div>
  );
}
