"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "./trpc";
import { money } from "./money";
import Link from "next/link";
import type { OrderView } from "@/server/orders/queries";
import type { OrderStatus } from "@/server/generated/prisma/enums";
import { useMessages } from "../_i18n/client";
import { countdownText } from "./clock-offset";
import { errorText } from "./errors";

const STATUS_TONE: Record<OrderStatus, string> = { WAIT_PAY: "wait", PAID: "ok", SHIPPED: "ok", CANCELLED: "", REFUNDING: "wait", REFUNDED: "" };

/** The current time, ticking every second (for the pay-by countdowns). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function MyOrders({ returnedOrderId }: { returnedOrderId: number | null }) {
  const t = useMessages();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Polled: timeouts, payments and shipping change orders without this page doing anything.
  const orders = useQuery({ ...trpc.order.list.queryOptions(), enabled: Boolean(me.data), refetchInterval: 2000 });
  const now = useNow();

  return (
    <div>
      <div className="row">
        <h1>{t.myOrders}</h1>
        <Link href="/">{t.backToSales}</Link>
      </div>
      {me.isPending || orders.isLoading ? <p className="muted" role="status">{t.loading}</p> : null}
      {me.data === null ? (
        <p className="muted">
          <Link href="/sign-in?next=%2Forders">{t.ordersSignIn}</Link>
        </p>
      ) : null}
      {me.data && returnedOrderId !== null ? <PaymentProgress orderId={returnedOrderId} /> : null}
      {orders.isError ? <p className="status bad" role="alert">{t.couldNotLoadOrders(errorText(orders.error, t))}</p> : null}
      {orders.data?.length === 0 ? <p className="muted">{t.noOrders}</p> : null}
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
  const t = useMessages();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.order.list.queryFilter());
  // A page to open (the sandbox cashier, Alipay, WeChat H5). A QR code (WeChat Native) is for
  // the pay page to draw; this button only follows redirects.
  const pay = useMutation(
    trpc.order.pay.mutationOptions({
      onSuccess: ({ action }) => {
        if (action.kind === "redirect") window.location.assign(action.url);
      },
    }),
  );
  const cancel = useMutation(trpc.order.cancel.mutationOptions({ onSuccess: refresh }));
  const error = pay.error ?? cancel.error;

  return (
    <article className={`card${highlighted ? " highlight" : ""}`} data-testid={`order-${order.id}`} aria-label={t.orderNumber(order.id)}>
      <div className="row">
        <h2>{order.productName}</h2>
        <span className={`badge ${STATUS_TONE[order.status]}`} data-testid="order-status">
          {t.orderStatus[order.status]}
        </span>
      </div>
      <p className="muted">
        {t.orderNumber(order.id)} · <strong className="amount">{money(order.amountCents)}</strong>
      </p>
      <OrderNote order={order} remainingMs={remainingMs} />
      {order.canPay || order.canCancel ? (
        <div className="actions">
          {order.canPay && remainingMs > 0 ? (
            <button type="button" disabled={pay.isPending || pay.isSuccess} onClick={() => pay.mutate({ orderId: order.id })}>
              {pay.isPending || pay.isSuccess ? t.openingPayment : t.pay(money(order.amountCents))}
            </button>
          ) : null}
          {order.canCancel ? (
            <button type="button" className="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate({ orderId: order.id })}>
              {t.cancelOrder}
            </button>
          ) : null}
        </div>
      ) : null}
      {error ? (
        <p className="status bad" role="alert">
          {errorText(error, t)}
        </p>
      ) : null}
    </article>
  );
}

function OrderNote({ order, remainingMs }: { order: OrderView; remainingMs: number }) {
  const t = useMessages();
  switch (order.status) {
    case "WAIT_PAY":
      return remainingMs > 0 ? (
        <p data-testid="pay-countdown">
          {t.payWithin} <strong className="clock">{countdownText(remainingMs)}</strong> {t.payWithinRest}
        </p>
      ) : (
        <p className="muted">{t.payTimeUp}</p>
      );
    case "PAID":
      return <p>{t.paidNote}</p>;
    case "SHIPPED":
      return <p>{t.shippedNote}</p>;
    case "CANCELLED":
      return <p className="muted">{order.cancelReason === "USER" ? t.cancelledByYou : t.cancelledTimeout}</p>;
    case "REFUNDING":
      return <p className="muted">{t.refundingNote}</p>;
    case "REFUNDED":
      return <p className="muted">{t.refundedNote}</p>;
  }
}

/** Back from the payment provider: its confirmation arrives separately, so poll until it does. */
function PaymentProgress({ orderId }: { orderId: number }) {
  const t = useMessages();
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

  if (status.isError) return <p className="status bad" role="alert">{errorText(status.error, t)}</p>;
  if (!status.data) return null;
  const { tone, text } =
    status.data.orderStatus === "WAIT_PAY"
      ? { tone: "wait", text: t.paymentPending(orderId) }
      : status.data.orderStatus === "REFUNDED"
        ? { tone: "bad", text: t.paymentRefunded(orderId) }
        : status.data.orderStatus === "CANCELLED"
          ? { tone: "bad", text: t.paymentCancelled(orderId) }
          : { tone: "ok", text: t.paymentReceived(orderId) };
  return (
    <p className={`status ${tone}`} role="status" data-testid="payment-progress">
      {text}
    </p>
  );
}
