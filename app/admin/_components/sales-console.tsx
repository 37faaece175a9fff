"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { SaleForm } from "./sale-form";

/** /admin: every sale, and the form for a new one. */
export function SalesConsole() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const sales = useQuery(trpc.admin.sales.queryOptions());
  const create = useMutation(
    trpc.admin.createSale.mutationOptions({
      onSuccess: async (sale) => {
        await queryClient.invalidateQueries({ queryKey: trpc.admin.sales.queryKey() });
        router.push(`/admin/sales/${sale.id}`);
      },
    }),
  );
  const [now] = useState(() => Date.now());
  return (
    <div>
      <h1>Sales</h1>
      <section className="card">
        {sales.isError ? <p className="status bad" role="alert">{sales.error.message}</p> : null}
        <table className="table" aria-label="Sales">
          <thead>
            <tr><th>#</th><th>Product</th><th>Price</th><th>Stock</th><th>Window</th><th>Phase</th><th>Redis</th></tr>
          </thead>
          <tbody>
            {sales.data?.map((s) => (
              <tr key={s.id}>
                <td>{s.id}</td>
                <td><a href={`/admin/sales/${s.id}`}>{s.productName}</a></td>
                <td>{money(s.priceCents)}</td>
                <td>{s.totalStock}</td>
                <td>{s.startsAt.toLocaleString()} – {s.endsAt.toLocaleString()}</td>
                <td>{s.phase}</td>
                <td>{s.warmedUp ? "warmed" : "cold"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card" aria-label="New sale">
        <h2>New sale</h2>
        <SaleForm
          initial={{
            productName: "",
            description: "",
            originalPriceCents: 0,
            priceCents: 0,
            stock: 100,
            perUserLimit: 1,
            startsAt: new Date(now + 60_000),
            endsAt: new Date(now + 3600_000),
            requireRealName: false,
            minMemberLevel: 0,
          }}
          withStock
          submitLabel="Create sale"
          pending={create.isPending}
          errors={create.error?.data?.fieldErrors}
          message={create.error ? (create.error.data?.fieldErrors ? "Fix the fields marked above." : create.error.message) : null}
          onSubmit={(values) => create.mutate({ ...values, stock: values.stock ?? Number.NaN })}
        />
      </section>
    </div>
  );
}
