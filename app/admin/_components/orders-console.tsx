"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { ORDER_STATUSES } from "@/server/orders/statuses";
import type { AdminOrder, AdminPayment } from "@/server/admin/orders";

type Status = (typeof ORDER_STATUSES)[number];
interface Filters {
  saleId?: number;
  status?: Status;
  email?: string;
  orderId?: number;
}

const positive = (text: string) => (/^[1-9]\d{0,9}$/.test(text.trim()) ? Number(text) : undefined);

/** While a refund waits for its provider, the list is read again this often until it settles. */
const REFUNDING_POLL_MS = 3000;

/** /admin/orders: search, ship paid orders one by one or in bulk, refund them (confirmed first), see each payment. */
export function OrdersConsole() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ saleId: "", status: "", email: "", orderId: "" });
  const [filters, setFilters] = useState<Filters>({});
  const [selected, setSelected] = useState<Set<number>>(new Set());
  // The orders a refund was asked for, waiting for the operator to confirm it.
  const [refundAsked, setRefundAsked] = useState<number[] | null>(null);
  const orders = useQuery({
    ...trpc.admin.orders.queryOptions(filters),
    refetchInterval: (query) => (query.state.data?.some((o) => o.status === "REFUNDING") ? REFUNDING_POLL_MS : false),
  });
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

  const search = (event: FormEvent) => {
    event.preventDefault();
    setFilters({
      saleId: positive(form.saleId),
      status: (ORDER_STATUSES as readonly string[]).includes(form.status) ? (form.status as Status) : undefined,
      email: form.email.trim() || undefined,
      orderId: positive(form.orderId),
    });
  };
  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  return (
    <div>
      <h1>Orders</h1>
      <section className="card" aria-label="Search orders">
        <form className="form-row" onSubmit={search}>
          <label>Order #<input value={form.orderId} onChange={(e) => setForm({ ...form, orderId: e.target.value })} /></label>
          <label>Sale #<input value={form.saleId} onChange={(e) => setForm({ ...form, saleId: e.target.value })} /></label>
          <label>Buyer email<input value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} /></label>
          <label>
            Status
            <select value={form.status} onChange={(e) => setForm({ ...form, status: e.target.value })}>
              <option value="">any</option>
              {ORDER_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </label>
          <button type="submit">Search</button>
        </form>
      </section>
      <section className="card" aria-label="Order results">
        <div className="actions">
          <button type="button" disabled={selected.size === 0 || shipMany.isPending} onClick={() => shipMany.mutate({ orderIds: [...selected] })}>
            Ship selected ({selected.size})
          </button>
          {shipMany.data ? (
            <span className="status ok" role="status" data-testid="bulk-result">
              Shipped {shipMany.data.shipped.length}
              {shipMany.data.refused.length ? `; not shipped: ${shipMany.data.refused.map((r) => r.reason).join(" ")}` : ""}
            </span>
          ) : null}
          <button type="button" className="secondary" disabled={selected.size === 0 || refund.isPending} onClick={() => askRefund([...selected].sort((a, b) => a - b))}>
            Refund selected ({selected.size})
          </button>
          {ship.data ? <span className="status ok" role="status" data-testid="ship-result">Order #{ship.data.orderId} shipped.</span> : null}
          {ship.error ? <span className="status bad" role="alert">{ship.error.message}</span> : null}
        </div>
        {refundAsked ? (
          <RefundConfirmation orderIds={refundAsked} orders={orders.data ?? []} onConfirm={confirmRefund} onCancel={() => setRefundAsked(null)} />
        ) : null}
        {refund.isPending ? <p className="status wait" role="status">Asking the providers to refund…</p> : null}
        {refund.data ? (
          <ul className="status ok refund-results" role="status" data-testid="refund-result" aria-label="Refund results">
            {refund.data.map((r) => (
              <li key={r.orderId} data-testid={`refund-result-${r.orderId}`} data-outcome={r.outcome}>
                {r.outcome}: {r.message}
              </li>
            ))}
          </ul>
        ) : null}
        {refund.error ? <p className="status bad" role="alert" data-testid="refund-error">{refund.error.message}</p> : null}
        {orders.isError ? <p className="status bad" role="alert">{orders.error.message}</p> : null}
        <table className="table" aria-label="Orders">
          <thead>
            <tr><th></th><th>#</th><th>Sale</th><th>Product</th><th>Buyer</th><th>Amount</th><th>Status</th><th>Payments</th><th></th></tr>
          </thead>
          <tbody>
            {orders.data?.map((o) => (
              <tr key={o.id} data-testid={`admin-order-${o.id}`}>
                <td>
                  {o.status === "PAID" ? <input type="checkbox" aria-label={`Select order ${o.id}`} checked={selected.has(o.id)} onChange={() => toggle(o.id)} /> : null}
                </td>
                <td>{o.id}</td>
                <td>{o.saleId}</td>
                <td>{o.productName}</td>
                <td>{o.userEmail}</td>
                <td>{money(o.amountCents)}</td>
                <td data-testid="admin-order-status">{o.status}</td>
                <td><Payments payments={o.payments} /></td>
                <td>
                  <div className="row-actions">
                    {o.status === "PAID" ? <button type="button" className="small" onClick={() => ship.mutate({ orderId: o.id })}>Ship</button> : null}
                    {o.status === "PAID" ? (
                      <button type="button" className="small secondary" disabled={refund.isPending} onClick={() => askRefund([o.id])}>Refund</button>
                    ) : null}
                    {/* A refund the provider refused stays REFUNDING; asking again retries it under the same refund number. */}
                    {o.status === "REFUNDING" && o.payments.some((p) => p.refundError) ? (
                      <button type="button" className="small secondary" disabled={refund.isPending} onClick={() => askRefund([o.id])}>Refund again</button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {orders.data?.length === 0 ? <p className="muted">No orders match.</p> : null}
      </section>
    </div>
  );
}

/** Every attempt to pay the order, one per provider: our and the provider's numbers, and the refund's. */
function Payments({ payments }: { payments: AdminPayment[] }) {
  if (payments.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="payments">
      {payments.map((p) => (
        <li key={p.provider} data-testid={`admin-payment-${p.provider}`}>
          <strong>{p.provider}</strong> <span data-testid="admin-payment-status">{p.status}</span>
          <dl>
            <dt>our trade no</dt>
            <dd><code>{p.outTradeNo}</code></dd>
            {p.providerTradeNo ? (<><dt>provider trade no</dt><dd><code>{p.providerTradeNo}</code></dd></>) : null}
            {p.paidAt ? (<><dt>paid</dt><dd>{p.paidAt.toLocaleString()}</dd></>) : null}
            {p.refundNo ? (<><dt>refund no</dt><dd><code>{p.refundNo}</code></dd></>) : null}
            {p.providerRefundNo ? (<><dt>provider refund no</dt><dd><code>{p.providerRefundNo}</code></dd></>) : null}
            {p.refundedAt ? (<><dt>refunded</dt><dd>{p.refundedAt.toLocaleString()}</dd></>) : null}
          </dl>
          {p.refundError ? <p className="status bad" data-testid="admin-refund-error">Refund refused: {p.refundError}</p> : null}
        </li>
      ))}
    </ul>
  );
}

/** Money goes back and the unit back on sale: said in full, then confirmed or not. */
function RefundConfirmation({ orderIds, orders, onConfirm, onCancel }: { orderIds: number[]; orders: AdminOrder[]; onConfirm: () => void; onCancel: () => void }) {
  const known = orders.filter((o) => orderIds.includes(o.id));
  const total = known.reduce((sum, o) => sum + o.amountCents, 0);
  const what = orderIds.length === 1 ? `order #${orderIds[0]}` : `${orderIds.length} orders (${orderIds.map((id) => `#${id}`).join(", ")})`;
  return (
    <div className="status wait confirm" role="alertdialog" aria-label="Confirm refund" aria-describedby="refund-confirm-text">
      <p id="refund-confirm-text">
        Refund {what}{known.length === orderIds.length ? `, ${money(total)} in all,` : ""} to the buyer through the provider that took the payment? Each unit goes back to its sale. This cannot be undone.
      </p>
      <div className="actions">
        <button type="button" onClick={onConfirm}>Yes, refund</button>
        <button type="button" className="secondary" onClick={onCancel}>Keep the order</button>
      </div>
    </div>
  );
}
