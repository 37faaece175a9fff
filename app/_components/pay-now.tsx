"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useMessages } from "../_i18n/client";
import { payOffer } from "./checkout";
import { countdownText } from "./clock-offset";
import { money } from "./money";
import { useTRPC } from "./trpc";
import { useNow } from "./use-now";

/** How often the offer reads its order again: a payment in another tab or the timeout shows without a reload. */
const ORDER_POLL_MS = 10_000;

/**
 * Pay for the order just bought, right under Buy: the pay-by countdown (order.get's time left,
 * as My orders and the pay page count it) and Pay to the order's pay page. Gone once the order
 * is paid or cancelled.
 */
export function PayNow({ orderId }: { orderId: number }) {
  const t = useMessages();
  const trpc = useTRPC();
  const order = useQuery({ ...trpc.order.get.queryOptions({ orderId }), refetchInterval: ORDER_POLL_MS });
  const now = useNow();
  const offer = payOffer(order.data, order.dataUpdatedAt, now);
  if (offer.kind === "LOADING" || offer.kind === "SETTLED") return null;
  return (
    <div className="pay-now" data-testid="pay-now">
      {offer.kind === "PAY" ? (
        // Not a live region: it ticks every second. The status line above says the order once.
        <p data-testid="pay-countdown">
          {t.payWithin} <strong className="clock">{countdownText(offer.remainingMs)}</strong> {t.payWithinRest}
        </p>
      ) : (
        <p className="muted">{t.payTimeUp}</p>
      )}
      <div className="actions">
        {offer.kind === "PAY" && order.data ? (
          <Link className="button pay-button" href={`/orders/${orderId}/pay`}>
            {t.pay(money(order.data.amountCents))}
          </Link>
        ) : null}
        <Link href="/orders">{t.myOrders}</Link>
      </div>
    </div>
  );
}
