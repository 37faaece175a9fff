"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { SaleStanding } from "@/server/seckill/sale-standing";
import type { PurchaseResult } from "@/server/seckill/purchase";
import type { Messages } from "../_i18n/messages";
import { soldOutOutlook } from "./checkout";
import { errorText } from "./errors";
import { useTRPC } from "./trpc";

/**
 * What BuyPanel (tokens) and RoomPanel (tickets) share once a purchase is QUEUED: following the
 * reservation to its order, and the one status line under the button.
 */

export type Status = { tone: "ok" | "bad" | "wait" | "note"; text: ReactNode } | null;

type CallError = Parameters<typeof errorText>[0];
export interface ResultReading {
  isError: boolean;
  error: CallError | null;
  data?: PurchaseResult | undefined;
}

/**
 * A reservation's fate, pushed by the server (SSE) until final; if the stream fails (refused as
 * one too many open, 429, among others), polled with backoff instead, the line saying "in the
 * queue" meanwhile. Kept in state because the subscription forgets its data when the stream ends.
 */
export function usePurchaseResult(reservationId: string | null): ResultReading {
  const trpc = useTRPC();
  // Kept with its reservation: after a second purchase the first one's ORDER_CREATED is not this one's.
  const [lastPush, setLastPush] = useState<{ reservationId: string; result: PurchaseResult }>();
  const pushedResult = lastPush && lastPush.reservationId === reservationId ? lastPush.result : undefined;
  const pushed = useSubscription(
    trpc.seckill.onResult.subscriptionOptions(
      { reservationId: reservationId ?? "" },
      {
        enabled: reservationId !== null,
        onData: (result) => {
          if (reservationId !== null) setLastPush({ reservationId, result });
        },
      },
    ),
  );
  const polled = useQuery({
    ...trpc.seckill.result.queryOptions({ reservationId: reservationId ?? "" }),
    enabled: reservationId !== null && pushed.status === "error",
    // 300 ms, doubling, at most 3 s, while the order is in the queue.
    refetchInterval: (query) =>
      query.state.data?.status === "QUEUED" || !query.state.data ? Math.min(3000, 300 * 2 ** query.state.dataUpdateCount) : false,
  });
  return pushed.status === "error" ? polled : { data: pushedResult, isError: false, error: null };
}

/** The line a queued purchase earns: in the queue, then its order (Pay is offered below it), or its failure; null before. */
export function resultStatus(t: Messages, result: ResultReading, reservationId: string | null): Status {
  if (result.data?.status === "ORDER_CREATED") return createdStatus(t, result.data.orderId);
  if (result.data?.status === "FAILED") return { tone: "bad", text: t.orderFailed };
  if (result.isError && result.error) return { tone: "bad", text: errorText(result.error, t) };
  if (reservationId) return { tone: "wait", text: t.inQueue };
  return null;
}

/** "Order #12 created — pay for it now.": the Pay offer (PayNow) follows it. */
export function createdStatus(t: Messages, orderId: number): Status {
  return { tone: "ok", text: t.orderCreated(orderId) };
}

/** The sold-out sentence: with units still held by unpaid orders, that they may come back. */
export function soldOutStatus(t: Messages, unitsMayReturn: number): Status {
  const outlook = soldOutOutlook(true, unitsMayReturn);
  return { tone: "note", text: outlook.kind === "MAY_RETURN" ? t.soldOutMayReturn(outlook.units) : t.soldOutNote };
}

/** A polite region that always exists (so it is heard when it fills), holding the panel's status line. */
export function StatusLine({ saleId, status }: { saleId: number; status: Status }) {
  return (
    <div aria-live="polite">
      {status ? (
        <p id={`purchase-status-${saleId}`} className={`status ${status.tone}`} data-testid="purchase-status">
          {status.text}
        </p>
      ) : null}
    </div>
  );
}

/** "You bought this — pay for order #12" (unpaid: to its pay page) or "— see order #12" (My orders). */
export function boughtNote(t: Messages, order: NonNullable<SaleStanding["order"]>): Status {
  const link =
    order.status === "WAIT_PAY" ? (
      <Link href={`/orders/${order.id}/pay`}>{t.payForOrderLink(order.id)}</Link>
    ) : (
      <Link href="/orders">{t.seeOrder(order.id)}</Link>
    );
  return {
    tone: "note",
    text: (
      <>
        {t.youBoughtThis}
        {link}
        {t.fullStop}
      </>
    ),
  };
}

/** "Try again" after an error the panel does not retry by itself: starts its retries over. */
export function RetryButton({ t, onRetry }: { t: Messages; onRetry: () => void }) {
  return (
    <button type="button" className="secondary" onClick={onRetry}>
      {t.retry}
    </button>
  );
}
