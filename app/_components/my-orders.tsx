"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTRPC } from "./trpc";
import { money } from "./money";
import Link from "next/link";
import type { OrderView, PaymentView } from "@/server/orders/queries";
import type { OrderStatus } from "@/server/generated/prisma/enums";
import { ACCOUNT_MESSAGES } from "../_i18n/account-messages";
import { useLang, useMessages } from "../_i18n/client";
import type { Messages } from "../_i18n/messages";
import { countdownText } from "./clock-offset";
import { errorText } from "./errors";
import { useNow } from "./use-now";
import styles from "./account.module.css";

const STATUS_TONE: Record<OrderStatus, string> = {
  WAIT_PAY: "wait",
  PAID: "ok",
  SHIPPED: "ok",
  CANCELLED: "",
  REFUNDING: "wait",
  REFUNDED: "",
};

/** The attempt that took the order's money (the first, should a second have come too), if any. */
function paidPayment(payments: readonly PaymentView[]): PaymentView | undefined {
  return payments.filter((p) => p.paidAt !== null).sort((a, b) => a.paidAt!.getTime() - b.paidAt!.getTime())[0];
}

/** A provider's name as the shopper reads it; one this build has no label for, as it is stored. */
function providerLabel(t: Messages, provider: string): string {
  return Object.hasOwn(t.providerName, provider) ? t.providerName[provider as keyof Messages["providerName"]] : provider;
}

/**
 * `returnedOrderId`: back from a payment provider with this order; `declined`: the shopper said
 * no at the provider's page, so nothing is on its way and the page offers to pay again.
 */
export function MyOrders({ returnedOrderId, declined = false }: { returnedOrderId: number | null; declined?: boolean }) {
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
      {me.isPending || orders.isLoading ? (
        <p className="muted" role="status">
          {t.loading}
        </p>
      ) : null}
      {me.data === null ? (
        <p className="muted">
          <Link href="/sign-in?next=%2Forders">{t.ordersSignIn}</Link>
        </p>
      ) : null}
      {me.data && returnedOrderId !== null ? <PaymentProgress orderId={returnedOrderId} declined={declined} /> : null}
      {orders.isError ? (
        <p className="status bad" role="alert">
          {t.couldNotLoadOrders(errorText(orders.error, t))}
        </p>
      ) : null}
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
  const cancel = useMutation(trpc.order.cancel.mutationOptions({ onSuccess: refresh }));
  const paid = paidPayment(order.payments);

  return (
    <article className={`card${highlighted ? " highlight" : ""}`} data-testid={`order-${order.id}`} aria-label={t.orderNumber(order.id)}>
      <div className={styles.orderHead}>
        <ProductImage name={order.productName} url={order.productImageUrl} />
        <div>
          <div className="row">
            <h2>{order.productName}</h2>
            <span className={`badge ${STATUS_TONE[order.status]}`} data-testid="order-status">
              {t.orderStatus[order.status]}
            </span>
          </div>
          <p className="muted">
            {t.orderNumber(order.id)} · <strong className="amount">{money(order.amountCents)}</strong>
          </p>
        </div>
      </div>
      <OrderNote order={order} remainingMs={remainingMs} />
      {paid ? (
        <p className="muted" data-testid="order-payment">
          {t.paidWith(providerLabel(t, paid.provider))}
          {paid.refundedAt ? ` · ${t.refundedOn(t.dateTime(paid.refundedAt))}` : ""}
        </p>
      ) : null}
      {order.canPay || order.canCancel ? (
        <div className="actions">
          {order.canPay && remainingMs > 0 ? (
            // The pay page offers the shop's providers; choosing one there starts the payment.
            <Link className="button" href={`/orders/${order.id}/pay`}>
              {t.pay(money(order.amountCents))}
            </Link>
          ) : null}
          {order.canCancel ? (
            <CancelOrder orderId={order.id} pending={cancel.isPending} onConfirm={() => cancel.mutate({ orderId: order.id })} />
          ) : null}
        </div>
      ) : null}
      {cancel.error ? (
        <p className="status bad" role="alert">
          {errorText(cancel.error, t)}
        </p>
      ) : null}
    </article>
  );
}

/** The product's picture in a fixed 64×64 box (nothing jumps as it loads), or a placeholder of that size. */
function ProductImage({ name, url }: { name: string; url: string | null }) {
  const a = ACCOUNT_MESSAGES[useLang()];
  if (!url) {
    return (
      <span className={styles.placeholder} data-testid="order-image-placeholder" aria-hidden="true">
        {a.noProductImage}
      </span>
    );
  }
  // A plain img: product pictures may be any site path or address, which next/image would have to list.
  // eslint-disable-next-line @next/next/no-img-element -- see the line above
  return <img className={styles.thumb} src={url} alt={a.productImage(name)} width={64} height={64} loading="lazy" decoding="async" />;
}

/**
 * Cancel gives up a won unit for good, so it asks first, inline: the safe choice (Keep) takes
 * the focus, Escape keeps too, and the focus returns to Cancel when the question closes.
 */
function CancelOrder({ orderId, pending, onConfirm }: { orderId: number; pending: boolean; onConfirm: () => void }) {
  const t = useMessages();
  const a = ACCOUNT_MESSAGES[useLang()];
  const [asking, setAsking] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) keepButton.current?.focus();
    else if (wasAsking.current) cancelButton.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  const questionId = `cancel-question-${orderId}`;

  if (!asking) {
    return (
      <button ref={cancelButton} type="button" className="secondary" disabled={pending} onClick={() => setAsking(true)}>
        {pending ? a.cancelling : t.cancelOrder}
      </button>
    );
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") setAsking(false);
  };
  return (
    <div role="group" aria-labelledby={questionId} className={styles.confirm} onKeyDown={onKeyDown}>
      <p id={questionId}>
        <strong>{a.confirmCancel(orderId)}</strong>
      </p>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          {a.confirmCancelYes}
        </button>
        <button ref={keepButton} type="button" className="secondary" onClick={() => setAsking(false)}>
          {a.confirmCancelNo}
        </button>
      </div>
    </div>
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
function PaymentProgress({ orderId, declined }: { orderId: number; declined: boolean }) {
  const t = useMessages();
  const a = ACCOUNT_MESSAGES[useLang()];
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

  if (status.isError)
    return (
      <p className="status bad" role="alert">
        {errorText(status.error, t)}
      </p>
    );
  if (!status.data) return null;
  if (status.data.orderStatus === "WAIT_PAY" && declined) {
    return (
      <p className="status bad" role="status" data-testid="payment-progress">
        {a.paymentDeclined(orderId)} <Link href={`/orders/${orderId}/pay`}>{a.payAgain}</Link>
      </p>
    );
  }
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
