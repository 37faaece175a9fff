"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES, type AdminMessages } from "@/app/_i18n/admin-messages";
import { ORDER_STATUSES } from "@/server/orders/statuses";
import { DEFAULT_ORDER_PAGE_SIZE, ORDER_PAGE_SIZES, readIdField, searchMessageIn } from "@/server/admin/order-search";
import type { AdminOrder, AdminPayment } from "@/server/admin/orders";
import type { Lang } from "@/server/i18n";
import { adminTime } from "./admin-time";
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

  const search = (event: FormEvent) => {
    event.preventDefault();
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
  return (
    <div>
      <h1>{t.title}</h1>
      <section className="card" aria-label={t.searchLabel}>
        <form className="form-row" onSubmit={search} noValidate>
          <label>
            {t.orderId}
            <input inputMode="numeric" value={form.orderId} aria-invalid={fieldError("orderId") ? true : undefined} onChange={(e) => setForm({ ...form, orderId: e.target.value })} />
            {fieldError("orderId") ? <span className="field-error" role="alert" data-testid="error-orderId">{fieldError("orderId")}</span> : null}
          </label>
          <label>
            {t.saleId}
            <input inputMode="numeric" value={form.saleId} aria-invalid={fieldError("saleId") ? true : undefined} onChange={(e) => setForm({ ...form, saleId: e.target.value })} />
            {fieldError("saleId") ? <span className="field-error" role="alert" data-testid="error-saleId">{fieldError("saleId")}</span> : null}
          </label>
          <label>{t.email}<input value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} /></label>
          <label>
            {t.status}
            <select value={form.status} onChange={(e) => setForm({ ...form, status: e.target.value })}>
              <option value="">{t.anyStatus}</option>
              {ORDER_STATUSES.map((s) => <option key={s} value={s}>{m.orderStatus[s] ?? s}</option>)}
            </select>
          </label>
          <button type="submit">{t.search}</button>
        </form>
      </section>
      <section className="card" aria-label={t.resultsLabel}>
        <div className="actions">
          <button type="button" disabled={selected.size === 0 || shipMany.isPending} onClick={() => shipMany.mutate({ orderIds: [...selected] })}>
            {t.shipSelected(selected.size)}
          </button>
          {shipMany.data ? (
            <span className="status ok" role="status" data-testid="bulk-result">
              {t.shippedCount(shipMany.data.shipped.length)}
              {shipMany.data.refused.length ? t.notShipped(shipMany.data.refused.map((r) => r.reason).join(" ")) : ""}
            </span>
          ) : null}
          <button type="button" className="secondary" disabled={selected.size === 0 || refund.isPending} onClick={() => askRefund([...selected].sort((a, b) => a - b))}>
            {t.refundSelected(selected.size)}
          </button>
          {ship.data ? <span className="status ok" role="status" data-testid="ship-result">{t.shippedOne(ship.data.orderId)}</span> : null}
          {ship.error ? <span className="status bad" role="alert">{ship.error.message}</span> : null}
        </div>
        {refundAsked ? <RefundConfirmation t={t} orderIds={refundAsked} orders={rows} onConfirm={confirmRefund} onCancel={() => setRefundAsked(null)} /> : null}
        {refund.isPending ? <p className="status wait" role="status">{t.refunding}</p> : null}
        {refund.data ? (
          <ul className="status ok refund-results" role="status" data-testid="refund-result" aria-label={t.refundResults}>
            {refund.data.map((r) => (
              <li key={r.orderId} data-testid={`refund-result-${r.orderId}`} data-outcome={r.outcome}>
                {m.refundOutcome[r.outcome] ?? r.outcome}: {r.message}
              </li>
            ))}
          </ul>
        ) : null}
        {refund.error ? <p className="status bad" role="alert" data-testid="refund-error">{refund.error.message}</p> : null}
        {orders.isError && !serverFieldErrors ? <p className="status bad" role="alert">{orders.error.message}</p> : null}
        <div className={styles.tableScroll}>
          <table className="table" aria-label={t.tableLabel}>
            <thead>
              <tr>
                <th>
                  <input type="checkbox" aria-label={t.selectAll} checked={allSelected} disabled={selectable.length === 0} onChange={toggleAll} />
                </th>
                <th>#</th><th>{t.sale}</th><th>{t.product}</th><th>{t.buyer}</th><th>{t.amount}</th><th>{t.status}</th>
                <th>{t.created}</th><th>{t.paid}</th><th>{t.payments}</th><th></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((o) => (
                <tr key={o.id} data-testid={`admin-order-${o.id}`}>
                  <td>
                    {o.status === "PAID" ? <input type="checkbox" aria-label={t.select(o.id)} checked={selected.has(o.id)} onChange={() => toggle(o.id)} /> : null}
                  </td>
                  <td>{o.id}</td>
                  <td>{o.saleId}</td>
                  <td>{o.productName}</td>
                  <td>{o.userEmail}</td>
                  <td>{money(o.amountCents)}</td>
                  <td data-testid="admin-order-status" data-status={o.status}>{m.orderStatus[o.status] ?? o.status}</td>
                  <td className={styles.nowrap} data-testid="admin-order-created">{adminTime(o.createdAt, lang)}</td>
                  <td className={styles.nowrap} data-testid="admin-order-paid">{adminTime(o.paidAt, lang)}</td>
                  <td><Payments payments={o.payments} m={m} lang={lang} /></td>
                  <td>
                    <div className="row-actions">
                      {o.status === "PAID" ? <button type="button" className="small" onClick={() => ship.mutate({ orderId: o.id })}>{t.ship}</button> : null}
                      {o.status === "PAID" ? (
                        <button type="button" className="small secondary" disabled={refund.isPending} onClick={() => askRefund([o.id])}>{t.refund}</button>
                      ) : null}
                      {/* A refund the provider refused stays REFUNDING; asking again retries it under the same refund number. */}
                      {o.status === "REFUNDING" && o.payments.some((p) => p.refundError) ? (
                        <button type="button" className="small secondary" disabled={refund.isPending} onClick={() => askRefund([o.id])}>{t.refundAgain}</button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {orders.data && rows.length === 0 ? <p className="muted">{t.none}</p> : null}
        <nav className={styles.paging} aria-label={t.pagingLabel}>
          <button type="button" className="secondary small" disabled={page <= 1} onClick={() => goTo(page - 1)}>{t.prev}</button>
          <span data-testid="page-range">{total === 0 ? t.pageOf(0, 0, 0) : t.pageOf((page - 1) * pageSize + 1, Math.min(page * pageSize, total), total)}</span>
          <button type="button" className="secondary small" disabled={page >= lastPage} onClick={() => goTo(page + 1)}>{t.next}</button>
          <label>
            {t.pageSize}{" "}
            <select value={pageSize} onChange={(e) => (clearResults(), setPage(1), setPageSize(Number(e.target.value)))}>
              {ORDER_PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
            </select>
          </label>
        </nav>
      </section>
    </div>
  );
}

/** Every attempt to pay the order, one per provider: our and the provider's numbers, and the refund's. */
function Payments({ payments, m, lang }: { payments: AdminPayment[]; m: AdminMessages; lang: Lang }) {
  const t = m.orders;
  if (payments.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="payments">
      {payments.map((p) => (
        <li key={p.provider} data-testid={`admin-payment-${p.provider}`}>
          <strong>{p.provider}</strong> <span data-testid="admin-payment-status" data-status={p.status}>{m.paymentStatus[p.status] ?? p.status}</span>
          <dl>
            <dt>{t.ourTradeNo}</dt>
            <dd><code>{p.outTradeNo}</code></dd>
            {p.providerTradeNo ? (<><dt>{t.providerTradeNo}</dt><dd><code>{p.providerTradeNo}</code></dd></>) : null}
            {p.paidAt ? (<><dt>{t.paidAt}</dt><dd>{adminTime(p.paidAt, lang)}</dd></>) : null}
            {p.refundNo ? (<><dt>{t.refundNo}</dt><dd><code>{p.refundNo}</code></dd></>) : null}
            {p.providerRefundNo ? (<><dt>{t.providerRefundNo}</dt><dd><code>{p.providerRefundNo}</code></dd></>) : null}
            {p.refundedAt ? (<><dt>{t.refundedAt}</dt><dd>{adminTime(p.refundedAt, lang)}</dd></>) : null}
          </dl>
          {p.refundError ? <p className="status bad" data-testid="admin-refund-error">{t.refundRefused(p.refundError)}</p> : null}
        </li>
      ))}
    </ul>
  );
}

/** Money goes back and the unit back on sale: said in full, then confirmed or not. */
function RefundConfirmation({ t, orderIds, orders, onConfirm, onCancel }: { t: AdminMessages["orders"]; orderIds: number[]; orders: AdminOrder[]; onConfirm: () => void; onCancel: () => void }) {
  const known = orders.filter((o) => orderIds.includes(o.id));
  const total = known.reduce((sum, o) => sum + o.amountCents, 0);
  const what = orderIds.length === 1 ? t.confirmOne(orderIds[0]!) : t.confirmMany(orderIds.length, orderIds.map((id) => `#${id}`).join(", "));
  return (
    <div className="status wait confirm" role="alertdialog" aria-label={t.confirmLabel} aria-describedby="refund-confirm-text">
      <p id="refund-confirm-text">{t.confirmText(what, known.length === orderIds.length ? money(total) : null)}</p>
      <div className="actions">
        <button type="button" onClick={onConfirm}>{t.yesRefund}</button>
        <button type="button" className="secondary" onClick={onCancel}>{t.keep}</button>
      </div>
    </div>
  );
}
