"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { SaleView } from "@/server/seckill/catalog";
import { useMessages } from "../_i18n/client";
import { errorText } from "./errors";
import { SaleCard } from "./sale-card";
import { useTRPC } from "./trpc";

/** The sale page: the server's first reading of the sale (and its clock), kept live from here. */
export function SaleDetail({ initialSale, renderedAt }: { initialSale: SaleView; renderedAt: number }) {
  const t = useMessages();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const sale = useQuery({
    ...trpc.sale.get.queryOptions({ saleId: initialSale.id }),
    initialData: initialSale,
    refetchInterval: 2000,
  });
  return (
    <div className="narrow">
      <p>
        <Link href="/">{t.backToSales}</Link>
      </p>
      {sale.isError ? (
        <p className="status bad" role="alert">
          {errorText(sale.error, t)}
        </p>
      ) : null}
      <SaleCard sale={sale.data} signedIn={Boolean(me.data)} detailed renderedAt={renderedAt} />
    </div>
  );
}
