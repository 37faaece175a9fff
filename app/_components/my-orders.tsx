"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "./trpc";
import { money } from "./money";
import type { OrderView } from "@/server/orders/queries";
import type { OrderStatus } from "@/server/generated/prisma/enums";

const STATUS_LABEL: Record<OrderStatus, { text: string; tone: string }> = {
  WAIT_PAY: { text: "Awaiting payment", tone: "wait" },
  PAID: { text: "Paid", tone: "ok" },
  SHIPPED: { text: "Shipped", tone: "ok" },
  CANCELLED: { text: "Cancelled", tone: "" },
  REFUNDED: { text: "Cancelled · refunded", tone: "" },
};

/** The current time, ticking every second (for the pay-by countdowns). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const clock = (ms: number) => {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
};

export function MyOrders({ returnedOrderId }: { returnedOrderId: number | null }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Polled: timeouts, payments and shipping change orders without this page doing anything.
  const orders = useQuery({ ...trpc.order.list.queryOptions(), enabled: Boolean(me.data), refetchInterval: 2000 });
  const now = useNow();

  return (
    <div>
      <div className="row">
        <h1>My orders</h1>
        <a href="/">← Today&apos;s flash sales</a>
      </div>
      {me.isPending ? <p className="muted">Loading…</p> : null}
      {me.data === null ? (
        <p className="muted">
          <a href="/">Sign in on the storefront</a> to see your orders.
        </p>
      ) : null}
      {me.data && returnedOrderId !== null ? <PaymentProgress orderId={returnedOrderId} /> : null}
      {orders.isError ? <p className="status bad" role="alert">Could not load your orders: {orders.error.message}</p> : null}
      {orders.data?.length === 0 ? <p className="muted">No orders yet.</p> : null}
      <div className="orders">
        {orders.data?.map((order) => (
          <OrderCard
            key={order.id}
            order={order}
            // The server's time left, counted down from when it answered: no clock skew.
            remainingMs={Math.max(0, order.payRemainingMs - (now - orders.dataUpdatedAt))}
            highlighted={order.id === returnedOrderId}
          />
        ))}
      </div>
    </div>
  );
}

function OrderCard({ order, remainingMs, highlighted }: { order: OrderView; remainingMs: number; highlighted: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.order.list.queryFilter());
  const pay = useMutation(trpc.order.pay.mutationOptions({ onSuccess: ({ payUrl }) => window.location.assign(payUrl) }));
  const cancel = useMutation(trpc.order.cancel.mutationOptions({ onSuccess: refresh }));
  const label = STATUS_LABEL[order.status];
  const error = pay.error ?? cancel.error;

  return (
    <article className={`card${highlighted ? " highlight" : ""}`} data-testid={`order-${order.id}`} aria-label={`Order #${order.id}`}>
      <div className="row">
        <h2>{order.productName}</h2>
        <span className={`badge ${label.tone}`} data-testid="order-status">
          {label.text}
        </span>
      </div>
      <p className="muted">
        Order #{order.id} · {money(order.amountCents)}
      </p>
      <OrderNote order={order} remainingMs={remainingMs} />
      {order.canPay || order.canCancel ? (
        <div className="actions">
          {order.canPay && remainingMs > 0 ? (
            <button type="button" disabled={pay.isPending || pay.isSuccess} onClick={() => pay.mutate({ orderId: order.id })}>
              {pay.isPending || pay.isSuccess ? "Opening payment…" : `Pay ${money(order.amountCents)}`}
            </button>
          ) : null}
          {order.canCancel ? (
            <button type="button" className="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate({ orderId: order.id })}>
              Cancel order
            </button>
          ) : null}
        </div>
      ) : null}
      {error ? (
        <p className="status bad" role="alert">
          {error.message}
        </p>
      ) : null}
    </article>
  );
}

function OrderNote({ order, remainingMs }: { order: OrderView; remainingMs: number }) {
  switch (order.status) {
    case "WAIT_PAY":
      return remainingMs > 0 ? (
        <p data-testid="pay-countdown">
          Pay within <strong>{clock(remainingMs)}</strong> or the order is cancelled and the item goes back on sale.
        </p>
      ) : (
        <p className="muted">The time to pay is up; the order is being cancelled.</p>
      );
    case "PAID":
      return <p>Paid — it ships soon.</p>;
    case "SHIPPED":
      return <p>On its way.</p>;
    case "CANCELLED":
      return <p className="muted">{order.cancelReason === "USER" ? "You cancelled this order." : "Not paid in time; the item went back on sale."}</p>;
    case "REFUNDED":
      return <p className="muted">Your payment arrived after the order was cancelled, so it was refunded in full.</p>;
  }
}

/** Back from the payment provider: its confirmation arrives separately, so poll until it does. */
function PaymentProgress({ orderId }: { orderId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery({
    ...trpc.order.paymentStatus.queryOptions({ orderId }),
    // Usually there within a second; a declined payment never comes, so back off to 5 s.
    refetchInterval: (query) =>
      query.state.data?.orderStatus === "WAIT_PAY" ? Math.min(5000, 500 * 2 ** query.state.dataUpdateCount) : false,
    retry: false,
  });
  const orderStatus = status.data?.orderStatus;
  useEffect(() => {
    if (orderStatus) void queryClient.invalidateQueries(trpc.order.list.queryFilter());
  }, [orderStatus, queryClient, trpc]);

  if (status.isError) return <p className="status bad" role="alert">{status.error.message}</p>;
  if (!status.data) return null;
  const { tone, text } =
    status.data.orderStatus === "WAIT_PAY"
      ? { tone: "wait", text: `No payment confirmed for order #${orderId} yet. If you paid, this updates in a moment.` }
      : status.data.orderStatus === "REFUNDED"
        ? { tone: "bad", text: `Order #${orderId} was cancelled before your payment arrived; the payment has been refunded.` }
        : status.data.orderStatus === "CANCELLED"
          ? { tone: "bad", text: `Order #${orderId} was cancelled.` }
          : { tone: "ok", text: `Payment received — order #${orderId} is paid.` };
  return (
    <p className={`status ${tone}`} role="status" data-testid="payment-progress">
      {text}
    </p>
  );
}
