"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert, Card, Table, Tag, Typography, type TableColumnsType } from "antd";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import type { AdminSale } from "@/server/admin/sales";
import { SaleForm } from "./sale-form";
import { adminTime } from "./admin-time";
import { rowTestId, tableWidth } from "./table-layout";
import { TAG } from "./status-colors";
import styles from "../admin.module.css";

/** What the list says a sale is doing: a live sale with nothing left is sold out, not live. */
export function saleState(sale: Pick<AdminSale, "phase" | "soldOut">): "UPCOMING" | "LIVE" | "ENDED" | "SOLD_OUT" {
  return sale.soldOut ? "SOLD_OUT" : sale.phase;
}

const STATE_COLOR: Record<ReturnType<typeof saleState>, string> = {
  UPCOMING: TAG.gold,
  LIVE: TAG.red,
  ENDED: TAG.grey,
  SOLD_OUT: TAG.grey,
};

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
  // Fixed widths and one-line cells: a long name or a narrow screen scrolls the table, never squeezes it.
  const columns: TableColumnsType<AdminSale> = [
    { title: t.id, dataIndex: "id", width: 64, fixed: "start" },
    {
      title: t.image,
      width: 72,
      render: (_, s) =>
        s.imageUrl ? (
          // eslint-disable-next-line @next/next/no-img-element -- any host an operator set: no optimiser
          <img className={styles.thumb} src={s.imageUrl} alt="" width={48} height={48} loading="lazy" data-testid="sale-thumb" />
        ) : (
          <span className={styles.thumb} aria-hidden="true" />
        ),
    },
    {
      title: t.product,
      width: 260,
      ellipsis: { showTitle: true },
      render: (_, s) => (
        <a href={`/admin/sales/${s.id}`} title={s.productName}>
          {s.productName}
        </a>
      ),
    },
    { title: t.price, width: 110, render: (_, s) => <span className={styles.nowrap}>{money(s.priceCents)}</span> },
    {
      title: t.soldRemaining,
      width: 200,
      render: (_, s) => (
        <span className={styles.nowrap} data-testid="sale-sold">
          {t.soldOf(s.sold, s.remaining)} <Typography.Text type="secondary">{t.total(s.totalStock)}</Typography.Text>
        </span>
      ),
    },
    {
      title: t.window,
      width: 250,
      render: (_, s) => (
        <span className={styles.nowrap}>
          {adminTime(s.startsAt, lang)} –<br />
          {adminTime(s.endsAt, lang)}
        </span>
      ),
    },
    {
      title: t.phase,
      width: 110,
      render: (_, s) => {
        const state = saleState(s);
        return (
          <Tag color={STATE_COLOR[state]} data-testid="sale-state" data-state={state}>
            {m.phase[state]}
          </Tag>
        );
      },
    },
    {
      title: t.redis,
      width: 120,
      render: (_, s) => <Tag color={s.warmedUp ? TAG.green : TAG.orange}>{s.warmedUp ? t.warmed : t.cold}</Tag>,
    },
    {
      title: t.room,
      width: 130,
      render: (_, s) => (
        <span className={styles.nowrap} data-testid="sale-room">
          {s.admissionRate > 0 ? t.roomRate(s.admissionRate) : t.noRoom}
        </span>
      ),
    },
  ];
  return (
    <div>
      <h1>{t.title}</h1>
      <Card className={styles.section}>
        {sales.isError ? <Alert type="error" role="alert" title={sales.error.message} /> : null}
        <div data-testid="sales-table">
          <Table<AdminSale>
            rowKey="id"
            size="small"
            columns={columns}
            dataSource={sales.data ?? []}
            loading={sales.isPending}
            pagination={false}
            scroll={{ x: tableWidth(columns) }}
            onRow={(s) => rowTestId(`admin-sale-${s.id}`)}
            locale={{ emptyText: t.none }}
          />
        </div>
      </Card>
      <Card className={styles.section} title={<h2 className={styles.cardTitle}>{t.newSale}</h2>} role="region" aria-label={t.newSale}>
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
          <Alert
            type="warning"
            role="status"
            data-testid="created-not-warmed"
            title={<a href={`/admin/sales/${create.data.id}`}>{t.createdNotWarmed(create.data.id)}</a>}
          />
        ) : null}
      </Card>
    </div>
  );
}
