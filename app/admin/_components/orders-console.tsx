"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Alert, Button, Card, Checkbox, Form, Input, Popover, Select, Space, Table, Tag, type TableColumnsType } from "antd";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES, type AdminMessages } from "@/app/_i18n/admin-messages";
import { ORDER_STATUSES } from "@/server/orders/statuses";
import { DEFAULT_ORDER_PAGE_SIZE, ORDER_PAGE_SIZES, readIdField, searchMessageIn } from "@/server/admin/order-search";
import type { AdminOrder, AdminPayment } from "@/server/admin/orders";
import type { Lang } from "@/server/platform/i18n";
import { adminTime } from "./admin-time";
import { ORDER_STATUS_COLOR, PAYMENT_STATUS_COLOR, TAG } from "./status-colors";
import { rowTestId, tableWidth } from "./table-layout";
import styles from "../admin.module.css";

type Status = (typeof ORDER_STATUSES)[number];
interface Filters {
  saleId?: number;
  status?: Status;
  email?: string;
  orderId?: number;
}

/** While a refund waits for its provider, the list is read again this often until it settles. */
const REFUNDING_POLL_MS = 3000;

/** /admin/orders: search, page through, ship paid orders one by one or in bulk, refund them (confirmed first), see each payment. */
export function OrdersConsole() {
  const lang = useLang();
  const m = ADMIN_MESSAGES[lang];
  const t = m.orders;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [form, setForm] = useState({ saleId: "", status: "", email: "", orderId: "" });
  const [fieldErrors, setFieldErrors] = useState<{ saleId?: string; orderId?: string }>({});
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState<number>(DEFAULT_ORDER_PAGE_SIZE);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  // The orders a refund was asked for, waiting for the operator to confirm it.
  const [refundAsked, setRefundAsked] = useState<number[] | null>(null);
  const orders = useQuery({
    ...trpc.admin.orders.queryOptions({ ...filters, page, pageSize }),
    refetchInterval: (query) => (query.state.data?.orders.some((o) => o.status === "REFUNDING") ? REFUNDING_POLL_MS : false),
  });
  const rows = orders.data?.orders ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.orders.queryKey() });
  const ship = useMutation(trpc.admin.ship.mutationOptions({ onSuccess: refresh }));
  const shipMany = useMutation(trpc.admin.shipMany.mutationOptions({ onSuccess: () => (setSelected(new Set()), refresh()) }));
  const refund = useMutation(
    trpc.admin.refundOrders.mutationOptions({
      onSuccess: (_, { orderIds }) => {
        const left = new Set(selected);
        for (const id of orderIds) left.delete(id);
        setSelected(left);
      },
      // A refund that failed half-way changed some orders: show them as they are now.
      onSettled: refresh,
    }),
  );
  const askRefund = (orderIds: number[]) => {
    refund.reset();
    setRefundAsked(orderIds);
  };
  const confirmRefund = () => {
    if (refundAsked) refund.mutate({ orderIds: refundAsked });
    setRefundAsked(null);
  };
  // Results of earlier actions belong to the earlier list: a new search or page starts clean.
  const clearResults = () => {
    ship.reset();
    shipMany.reset();
    refund.reset();
    setRefundAsked(null);
    setSelected(new Set());
  };

  const search = () => {
    const orderId = readIdField(form.orderId);
    const saleId = readIdField(form.saleId);
    const problems = { ...(orderId.ok ? {} : { orderId: t.notANumber }), ...(saleId.ok ? {} : { saleId: t.saleNotANumber }) };
    setFieldErrors(problems);
    if (!orderId.ok || !saleId.ok) return;
    clearResults();
    setPage(1);
    setFilters({
      saleId: saleId.value,
      status: (ORDER_STATUSES as readonly string[]).includes(form.status) ? (form.status as Status) : undefined,
      email: form.email.trim() || undefined,
      orderId: orderId.value,
    });
  };
  const goTo = (next: number) => {
    clearResults();
    setPage(next);
  };
  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const selectable = rows.filter((o) => o.status === "PAID").map((o) => o.id);
  const allSelected = selectable.length > 0 && selectable.every((id) => selected.has(id));
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(selectable));
  const total = orders.data?.total ?? 0;
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  const serverFieldErrors = orders.error?.data?.fieldErrors as Record<string, string[] | undefined> | null | undefined;
  const fieldError = (name: "orderId" | "saleId") =>
    fieldErrors[name] ?? serverFieldErrors?.[name]?.map((text) => searchMessageIn(lang, text)).join(" ");
  const id = (name: string) => `${formId}-${name}`;
  const searchField = (name: "orderId" | "saleId", label: string, value: string) => (
    <Form.Item
      label={label}
      htmlFor={id(name)}
      validateStatus={fieldError(name) ? "error" : undefined}
      help={fieldError(name) ? <span data-testid={`error-${name}`}>{fieldError(name)}</span> : undefined}
    >
      <Input
        id={id(name)}
        inputMode="numeric"
        value={value}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
        style={{ width: 140 }}
      />
    </Form.Item>
  );

  // Fixed widths, one-line cells (a long email or name ends in "…" with its whole text as the
  // title): a row stays one line high, the table scrolls sideways inside its card instead.
  const columns: TableColumnsType<AdminOrder> = [
    {
      key: "select",
      width: 48,
      fixed: "start",
      // The select-all box sits above the table: antd copies column titles into its hidden
      // measuring row, where a focusable box is an aria-hidden-focus violation.
      title: <span className={styles.srOnly}>{t.selectColumn}</span>,
      render: (_, o) =>
        o.status === "PAID" ? <Checkbox aria-label={t.select(o.id)} checked={selected.has(o.id)} onChange={() => toggle(o.id)} /> : null,
    },
    { key: "id", title: "#", dataIndex: "id", width: 80, fixed: "start" },
    { key: "sale", title: t.sale, dataIndex: "saleId", width: 72 },
    { key: "product", title: t.product, dataIndex: "productName", width: 220, ellipsis: { showTitle: true } },
    { key: "buyer", title: t.buyer, dataIndex: "userEmail", width: 240, ellipsis: { showTitle: true } },
    { key: "amount", title: t.amount, width: 110, render: (_, o) => <span className={styles.nowrap}>{money(o.amountCents)}</span> },
    {
      key: "status",
      title: t.status,
      width: 130,
      render: (_, o) => (
        <Tag color={ORDER_STATUS_COLOR[o.status]} data-testid="admin-order-status" data-status={o.status}>
          {m.orderStatus[o.status] ?? o.status}
        </Tag>
      ),
    },
    {
      key: "created",
      title: t.created,
      width: 230,
      render: (_, o) => (
        <span className={styles.nowrap} data-testid="admin-order-created">
          {adminTime(o.createdAt, lang)}
        </span>
      ),
    },
    {
      key: "paid",
      title: t.paid,
      width: 230,
      render: (_, o) => (
        <span className={styles.nowrap} data-testid="admin-order-paid">
          {adminTime(o.paidAt, lang)}
        </span>
      ),
    },
    { key: "payments", title: t.payments, width: 300, render: (_, o) => <Payments payments={o.payments} m={m} lang={lang} /> },
    {
      key: "actions",
      title: <span className={styles.srOnly}>{t.actions}</span>,
      width: 190,
      fixed: "end",
      render: (_, o) => (
        <Space size={4} wrap={false}>
          {o.status === "PAID" ? (
            <Button size="small" type="primary" onClick={() => ship.mutate({ orderId: o.id })}>
              {t.ship}
            </Button>
          ) : null}
          {o.status === "PAID" ? (
            <Button size="small" disabled={refund.isPending} onClick={() => askRefund([o.id])}>
              {t.refund}
            </Button>
          ) : null}
          {/* A refund the provider refused stays REFUNDING; asking again retries it under the same refund number. */}
          {o.status === "REFUNDING" && o.payments.some((p) => p.refundError) ? (
            <Button size="small" disabled={refund.isPending} onClick={() => askRefund([o.id])}>
              {t.refundAgain}
            </Button>
          ) : null}
        </Space>
      ),
    },
  ];
  return (
    <div>
      <h1>{t.title}</h1>
      <Card className={styles.section} role="region" aria-label={t.searchLabel}>
        <Form layout="inline" onFinish={search} noValidate className={styles.searchForm}>
          {searchField("orderId", t.orderId, form.orderId)}
          {searchField("saleId", t.saleId, form.saleId)}
          <Form.Item label={t.email} htmlFor={id("email")}>
            <Input
              id={id("email")}
              value={form.email}
              onChange={(e) => setForm({ ...form, email: e.target.value })}
              style={{ width: 220 }}
            />
          </Form.Item>
          <Form.Item label={t.status} htmlFor={id("status")}>
            <Select
              id={id("status")}
              value={form.status}
              onChange={(status: string) => setForm({ ...form, status })}
              style={{ width: 160 }}
              options={[{ value: "", label: t.anyStatus }, ...ORDER_STATUSES.map((s) => ({ value: s, label: m.orderStatus[s] ?? s }))]}
            />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit">
              {t.search}
            </Button>
          </Form.Item>
        </Form>
      </Card>
      <Card className={styles.section} role="region" aria-label={t.resultsLabel}>
        <div className="actions">
          <Checkbox aria-label={t.selectAll} checked={allSelected} disabled={selectable.length === 0} onChange={toggleAll}>
            {t.selectAllShort}
          </Checkbox>
          <Button
            type="primary"
            disabled={selected.size === 0 || shipMany.isPending}
            onClick={() => shipMany.mutate({ orderIds: [...selected] })}
          >
            {t.shipSelected(selected.size)}
          </Button>
          {shipMany.data ? (
            <span className="status ok" role="status" data-testid="bulk-result">
              {t.shippedCount(shipMany.data.shipped.length)}
              {shipMany.data.refused.length ? t.notShipped(shipMany.data.refused.map((r) => r.reason).join(" ")) : ""}
            </span>
          ) : null}
          <Button disabled={selected.size === 0 || refund.isPending} onClick={() => askRefund([...selected].sort((a, b) => a - b))}>
            {t.refundSelected(selected.size)}
          </Button>
          {ship.data ? (
            <span className="status ok" role="status" data-testid="ship-result">
              {t.shippedOne(ship.data.orderId)}
            </span>
          ) : null}
          {ship.error ? (
            <span className="status bad" role="alert">
              {ship.error.message}
            </span>
          ) : null}
        </div>
        {refundAsked ? (
          <RefundConfirmation t={t} orderIds={refundAsked} orders={rows} onConfirm={confirmRefund} onCancel={() => setRefundAsked(null)} />
        ) : null}
        {refund.isPending ? (
          <p className="status wait" role="status">
            {t.refunding}
          </p>
        ) : null}
        {refund.data ? (
          <ul className="status ok refund-results" role="status" data-testid="refund-result" aria-label={t.refundResults}>
            {refund.data.map((r) => (
              <li key={r.orderId} data-testid={`refund-result-${r.orderId}`} data-outcome={r.outcome}>
                {m.refundOutcome[r.outcome] ?? r.outcome}: {r.message}
              </li>
            ))}
          </ul>
        ) : null}
        {refund.error ? (
          <p className="status bad" role="alert" data-testid="refund-error">
            {refund.error.message}
          </p>
        ) : null}
        {orders.isError && !serverFieldErrors ? <Alert type="error" role="alert" title={orders.error.message} /> : null}
        <div className={styles.tableBox} data-testid="orders-table">
          <Table<AdminOrder>
            rowKey="id"
            size="small"
            columns={columns}
            dataSource={rows}
            loading={orders.isFetching && !orders.data}
            pagination={false}
            scroll={{ x: tableWidth(columns) }}
            onRow={(o) => rowTestId(`admin-order-${o.id}`)}
            locale={{ emptyText: orders.data ? t.none : " " }}
          />
        </div>
        <nav className={styles.paging} aria-label={t.pagingLabel}>
          <Button size="small" disabled={page <= 1} onClick={() => goTo(page - 1)}>
            {t.prev}
          </Button>
          <span data-testid="page-range">
            {total === 0 ? t.pageOf(0, 0, 0) : t.pageOf((page - 1) * pageSize + 1, Math.min(page * pageSize, total), total)}
          </span>
          <Button size="small" disabled={page >= lastPage} onClick={() => goTo(page + 1)}>
            {t.next}
          </Button>
          <label className={styles.inlineLabel} htmlFor={id("pageSize")}>
            {t.pageSize}
          </label>
          <Select
            id={id("pageSize")}
            size="small"
            value={pageSize}
            onChange={(size: number) => (clearResults(), setPage(1), setPageSize(size))}
            options={ORDER_PAGE_SIZES.map((n) => ({ value: n, label: String(n) }))}
            style={{ width: 80 }}
          />
        </nav>
      </Card>
    </div>
  );
}

/**
 * Every attempt to pay the order, one line each: provider, state and our trade number; the
 * provider's numbers and the refund's behind "…", so a row stays one or two lines high.
 */
function Payments({ payments, m, lang }: { payments: AdminPayment[]; m: AdminMessages; lang: Lang }) {
  const t = m.orders;
  const providerName = (provider: string) => m.providerName[provider] ?? provider;
  if (payments.length === 0) return <span className="muted">—</span>;
  return (
    <ul className={styles.payments}>
      {payments.map((p) => (
        <li key={p.provider} data-testid={`admin-payment-${p.provider}`}>
          <span className={styles.oneLine}>
            <strong>{providerName(p.provider)}</strong>{" "}
            <Tag color={PAYMENT_STATUS_COLOR[p.status]} data-testid="admin-payment-status" data-status={p.status}>
              {m.paymentStatus[p.status] ?? p.status}
            </Tag>
            {p.refundError ? (
              <Tag color={TAG.red} data-testid="admin-refund-error" title={p.refundError}>
                {t.refundRefused(p.refundError)}
              </Tag>
            ) : null}
            <Popover
              trigger="click"
              content={
                <dl className={styles.paymentDetails}>
                  {p.providerTradeNo ? (
                    <>
                      <dt>{t.providerTradeNo}</dt>
                      <dd>
                        <code>{p.providerTradeNo}</code>
                      </dd>
                    </>
                  ) : null}
                  {p.paidAt ? (
                    <>
                      <dt>{t.paidAt}</dt>
                      <dd>{adminTime(p.paidAt, lang)}</dd>
                    </>
                  ) : null}
                  {p.refundNo ? (
                    <>
                      <dt>{t.refundNo}</dt>
                      <dd>
                        <code>{p.refundNo}</code>
                      </dd>
                    </>
                  ) : null}
                  {p.providerRefundNo ? (
                    <>
                      <dt>{t.providerRefundNo}</dt>
                      <dd>
                        <code>{p.providerRefundNo}</code>
                      </dd>
                    </>
                  ) : null}
                  {p.refundedAt ? (
                    <>
                      <dt>{t.refundedAt}</dt>
                      <dd>{adminTime(p.refundedAt, lang)}</dd>
                    </>
                  ) : null}
                  {p.refundError ? (
                    <>
                      <dt>{t.refundRefused("")}</dt>
                      <dd>{p.refundError}</dd>
                    </>
                  ) : null}
                </dl>
              }
            >
              <Button size="small" type="link" aria-label={t.paymentDetails(providerName(p.provider))}>
                …
              </Button>
            </Popover>
          </span>
          <span className={styles.oneLine} title={p.outTradeNo}>
            {t.ourTradeNo} <code>{p.outTradeNo}</code>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Money goes back and the unit back on sale: said in full, then confirmed or not. */
function RefundConfirmation({
  t,
  orderIds,
  orders,
  onConfirm,
  onCancel,
}: {
  t: AdminMessages["orders"];
  orderIds: number[];
  orders: AdminOrder[];
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const known = orders.filter((o) => orderIds.includes(o.id));
  const total = known.reduce((sum, o) => sum + o.amountCents, 0);
  const what =
    orderIds.length === 1 ? t.confirmOne(orderIds[0]!) : t.confirmMany(orderIds.length, orderIds.map((id) => `#${id}`).join(", "));
  return (
    <div className="status wait confirm" role="alertdialog" aria-label={t.confirmLabel} aria-describedby="refund-confirm-text">
      <p id="refund-confirm-text">{t.confirmText(what, known.length === orderIds.length ? money(total) : null)}</p>
      <Space wrap>
        <Button type="primary" danger onClick={onConfirm}>
          {t.yesRefund}
        </Button>
        <Button onClick={onCancel}>{t.keep}</Button>
      </Space>
    </div>
  );
}
