"use client";
import { useQuery } from "@tanstack/react-query";
import { useMessages } from "../_i18n/client";
import { errorText } from "./errors";
import { SaleCard } from "./sale-card";
import { useTRPC } from "./trpc";

/** The catalog: every sale, live ones first, stock refreshed from Redis every 2 s. */
export function Storefront() {
  const t = useMessages();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const sales = useQuery({ ...trpc.sale.list.queryOptions(), refetchInterval: 2000 });

  return (
    <div>
      <h1>{t.todaysSales}</h1>
      {sales.isError ? (
        <p className="status bad" role="alert">
          {t.couldNotLoadSales(errorText(sales.error, t))}
        </p>
      ) : null}
      {sales.isPending ? <p className="muted" role="status">{t.loadingSales}</p> : null}
      {sales.data?.length === 0 ? <p className="muted">{t.noSales}</p> : null}
      <div className="grid">
        {sales.data?.map((sale) => <SaleCard key={sale.id} sale={sale} signedIn={Boolean(me.data)} />)}
      </div>
    </div>
  );
}
