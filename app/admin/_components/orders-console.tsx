"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { ORDER_STATUSES } from "@/server/orders/statuses";

type Status = (typeof ORDER_STATUSES)[number];
interface Filters {
  saleId?: number;
  status?: Status;
  email?: string;
  orderId?: number;
}

const positive = (text: string) => (/^[1-9]\d{0,9}$/.test(text.trim()) ? Number(text) : undefined);

/** /admin/orders: search, ship paid orders one by one or in bulk, see refunds. */
export function OrdersConsole() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ saleId: "", status: "", email: "", orderId: "" });
  const [filters, setFilters] = useState<Filters>({});
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const orders = useQuery(trpc.admin.orders.queryOptions(filters));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.orders.queryKey() });
  const ship = useMutation(trpc.admin.ship.mutationOptions({ onSuccess: refresh }));
  const shipMany = useMutation(trpc.admin.shipMany.mutationOptions({ onSuccess: () => (setSelected(new Set()), refresh()) }));

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
          {ship.data ? <span className="status ok" role="status" data-testid="ship-result">Order #{ship.data.orderId} shipped.</span> : null}
          {ship.error ? <span className="status bad" role="alert">{ship.error.message}</span> : null}
        </div>
        {orders.isError ? <p className="status bad" role="alert">{orders.error.message}</p> : null}
        <table className="table" aria-label="Orders">
          <thead>
            <tr><th></th><th>#</th><th>Sale</th><th>Product</th><th>Buyer</th><th>Amount</th><th>Status</th><th>Payment</th><th></th></tr>
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
                <td>
                  {o.payment ? o.payment.status : "—"}
                  {o.payment?.refundedAt ? ` (refunded ${o.payment.refundedAt.toLocaleString()})` : ""}
                </td>
                <td>{o.status === "PAID" ? <button type="button" onClick={() => ship.mutate({ orderId: o.id })}>Ship</button> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {orders.data?.length === 0 ? <p className="muted">No orders match.</p> : null}
      </section>
    </div>
  );
}
