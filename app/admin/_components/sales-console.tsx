"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import type { AdminSale } from "@/server/admin/sales";
import { SaleForm } from "./sale-form";
import { adminTime } from "./admin-time";
import styles from "../admin.module.css";

/** What the list says a sale is doing: a live sale with nothing left is sold out, not live. */
export function saleState(sale: Pick<AdminSale, "phase" | "soldOut">): "UPCOMING" | "LIVE" | "ENDED" | "SOLD_OUT" {
  return sale.soldOut ? "SOLD_OUT" : sale.phase;
}

const BADGE: Record<ReturnType<typeof saleState>, string> = { UPCOMING: "wait", LIVE: "live", ENDED: "", SOLD_OUT: "" };

/** /admin: every sale, and the form for a new one. */
/** `verifiedContactByDefault`: a new sale asks for a verified email unless the operator unticks it (on in production). */
export function SalesConsole({ verifiedContactByDefault }: { verifiedContactByDefault: boolean }) {
  const lang = useLang();
  const m = ADMIN_MESSAGES[lang];
  const t = m.sales;
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const sales = useQuery(trpc.admin.sales.queryOptions());
  const create = useMutation(
    trpc.admin.createSale.mutationOptions({
      onSuccess: async (sale) => {
        await queryClient.invalidateQueries({ queryKey: trpc.admin.sales.queryKey() });
        // Not loaded: stay and say so (the worker loads it before it opens); loaded: on to its dashboard.
        if (sale.warmedUp) router.push(`/admin/sales/${sale.id}`);
      },
    }),
  );
  const [now] = useState(() => Date.now());
  return (
    <div>
      <h1>{t.title}</h1>
      <section className="card">
        {sales.isError ? <p className="status bad" role="alert">{sales.error.message}</p> : null}
        <div className={styles.tableScroll}>
          <table className="table" aria-label={t.tableLabel}>
            <thead>
              <tr>
                <th>{t.id}</th>
                <th>{t.image}</th>
                <th>{t.product}</th>
                <th>{t.price}</th>
                <th>{t.soldRemaining}</th>
                <th>{t.window}</th>
                <th>{t.phase}</th>
                <th>{t.redis}</th>
                <th>{t.room}</th>
              </tr>
            </thead>
            <tbody>
              {sales.data?.map((s) => {
                const state = saleState(s);
                return (
                  <tr key={s.id} data-testid={`admin-sale-${s.id}`}>
                    <td>{s.id}</td>
                    <td>
                      {s.imageUrl ? (
                        // eslint-disable-next-line @next/next/no-img-element -- any host an operator set: no optimiser
                        <img className={styles.thumb} src={s.imageUrl} alt="" width={48} height={48} loading="lazy" data-testid="sale-thumb" />
                      ) : (
                        <span className={styles.thumb} aria-hidden="true" />
                      )}
                    </td>
                    <td><a href={`/admin/sales/${s.id}`}>{s.productName}</a></td>
                    <td>{money(s.priceCents)}</td>
                    <td className={styles.nowrap} data-testid="sale-sold">
                      {t.soldOf(s.sold, s.remaining)} <span className="muted">{t.total(s.totalStock)}</span>
                    </td>
                    <td>{adminTime(s.startsAt, lang)} – {adminTime(s.endsAt, lang)}</td>
                    <td><span className={`badge ${BADGE[state]}`} data-testid="sale-state" data-state={state}>{m.phase[state]}</span></td>
                    <td>{s.warmedUp ? t.warmed : t.cold}</td>
                    <td data-testid="sale-room">{s.admissionRate > 0 ? t.roomRate(s.admissionRate) : t.noRoom}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {sales.data?.length === 0 ? <p className="muted">{t.none}</p> : null}
      </section>
      <section className="card" aria-label={t.newSale}>
        <h2>{t.newSale}</h2>
        <SaleForm
          initial={{
            productName: "",
            description: "",
            imageUrl: "",
            originalPriceCents: 0,
            priceCents: 0,
            stock: 100,
            unitLimit: 1,
            startsAt: new Date(Math.ceil((now + 5 * 60_000) / 60_000) * 60_000),
            endsAt: new Date(Math.ceil((now + 65 * 60_000) / 60_000) * 60_000),
            requireRealName: false,
            requireVerifiedContact: verifiedContactByDefault,
            accountsCreatedBefore: null,
            minMemberLevel: 0,
            admissionRate: 0,
            arrivalOrder: "RANDOM",
            purchaseChallenge: false,
          }}
          withStock
          submitLabel={t.create}
          pending={create.isPending}
          errors={create.error?.data?.fieldErrors}
          message={create.error ? (create.error.data?.fieldErrors ? m.form.fixFields : create.error.message) : null}
          onSubmit={(values) => create.mutate({ ...values, stock: values.stock ?? Number.NaN })}
        />
        {create.data && !create.data.warmedUp ? (
          <p className="status wait" role="status" data-testid="created-not-warmed">
            <a href={`/admin/sales/${create.data.id}`}>{t.createdNotWarmed(create.data.id)}</a>
          </p>
        ) : null}
      </section>
    </div>
  );
}
