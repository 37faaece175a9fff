"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { PaymentProviderName } from "@/server/platform/env";
import { useMessages } from "../_i18n/client";
import { countdownText } from "./clock-offset";
import { errorText, payErrorText } from "./errors";
import { money } from "./money";
import { browserDeviceSignals, payDevice } from "./pay-device";
import { QrCode } from "./qr-code";
import { qrPaymentState, type QrPaymentState } from "./qr-payment-state";
import { useTRPC } from "./trpc";
import { useNow } from "./use-now";

/** A QR code order.pay answered (WeChat Native): drawn here, and followed until it is paid. */
interface ShownQr {
  provider: PaymentProviderName;
  outTradeNo: string;
  codeUrl: string;
}

/** How often the QR code's payment is asked after: a scan is paid within seconds. */
const QR_POLL_MS = 2000;

/**
 * /orders/<id>/pay: the order's amount and time left, and the providers the shop offers, in the
 * shop's order. Choosing one starts (or reuses) that provider's attempt, which closes the others
 * at their providers first: the shopper is sent to the provider's page, or shown its QR code.
 */
export function PayPage({ orderId }: { orderId: number }) {
  const t = useMessages();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const order = useQuery({ ...trpc.order.get.queryOptions({ orderId }), enabled: Boolean(me.data), retry: false });
  const offered = useQuery({ ...trpc.order.payProviders.queryOptions(), enabled: Boolean(me.data) });
  const [qr, setQr] = useState<ShownQr | null>(null);
  const pay = useMutation(
    trpc.order.pay.mutationOptions({
      onSuccess: (start) => {
        if (start.action.kind === "redirect") window.location.assign(start.action.url);
        else setQr({ provider: start.provider, outTradeNo: start.outTradeNo, codeUrl: start.action.codeUrl });
      },
      // A refusal may mean the order changed (paid, cancelled): show it as it is now.
      onError: () => queryClient.invalidateQueries(trpc.order.get.queryFilter({ orderId })),
    }),
  );
  const now = useNow();
  const choose = (provider: PaymentProviderName) => {
    setQr(null);
    pay.mutate({ orderId, provider, device: payDevice(browserDeviceSignals()) });
  };

  const view = order.data;
  // The server's time left, counted down from when it answered: no clock skew.
  const remainingMs = view ? Math.max(0, view.payRemainingMs - (now - order.dataUpdatedAt)) : 0;
  // After a redirect answer the browser is leaving: keep the buttons shut until it has.
  const leaving = pay.isSuccess && pay.data.action.kind === "redirect";
  const pendingProvider = pay.isPending || leaving ? pay.variables?.provider : undefined;

  return (
    <div className="narrow">
      <div className="row">
        <h1>{t.payForOrder(orderId)}</h1>
        <Link href="/orders">{t.backToOrders}</Link>
      </div>
      {me.isPending || (me.data && order.isPending) ? (
        <p className="muted" role="status">
          {t.loading}
        </p>
      ) : null}
      {me.data === null ? (
        <p className="muted">
          <Link href={`/sign-in?next=${encodeURIComponent(`/orders/${orderId}/pay`)}`}>{t.signInToPay}</Link>
        </p>
      ) : null}
      {order.isError ? (
        <p className="status bad" role="alert">
          {errorText(order.error, t)}
        </p>
      ) : null}
      {view ? (
        <section className="card" aria-label={t.payForOrder(orderId)}>
          <h2>{view.productName}</h2>
          <dl className="pay-facts">
            <div>
              <dt>{t.amountDue}</dt>
              <dd className="price" data-testid="pay-amount">
                {money(view.amountCents)}
              </dd>
            </div>
            {view.status === "WAIT_PAY" ? (
              <div>
                <dt>{t.timeLeftToPay}</dt>
                <dd className="clock" data-testid="pay-time-left">
                  {countdownText(remainingMs)}
                </dd>
              </div>
            ) : null}
          </dl>
          {view.status !== "WAIT_PAY" ? (
            qr ? null : (
              <p className="status" data-testid="pay-not-payable">
                {t.orderNotPayable(t.orderStatus[view.status])} <Link href={`/orders?order=${orderId}`}>{t.myOrders}</Link>
              </p>
            )
          ) : remainingMs <= 0 ? (
            <p className="muted">{t.payTimeUp}</p>
          ) : offered.data?.providers.length === 0 ? (
            <p className="status bad" role="alert">
              {t.paymentsNotSetUp}
            </p>
          ) : (
            <fieldset className="providers" disabled={pendingProvider !== undefined}>
              <legend>{t.choosePaymentMethod}</legend>
              {offered.data?.providers.map((provider) => (
                <div key={provider} className={`provider${qr?.provider === provider ? " chosen" : ""}`}>
                  <button
                    type="button"
                    className={qr?.provider === provider ? "" : "secondary"}
                    aria-pressed={qr?.provider === provider}
                    aria-describedby={`provider-hint-${provider}`}
                    onClick={() => choose(provider)}
                  >
                    {pendingProvider === provider ? t.openingProvider(t.providerName[provider]) : t.providerName[provider]}
                  </button>
                  <span className="muted" id={`provider-hint-${provider}`}>
                    {t.providerHint[provider]}
                  </span>
                </div>
              ))}
            </fieldset>
          )}
          {pay.error ? (
            <p className="status bad" role="alert" data-testid="pay-error">
              {payErrorText(pay.error, t)}
            </p>
          ) : null}
        </section>
      ) : null}
      {qr ? <QrPayment key={qr.outTradeNo} orderId={orderId} qr={qr} /> : null}
    </div>
  );
}

/** The QR code to scan, and what became of it: asked every two seconds until it is settled. */
function QrPayment({ orderId, qr }: { orderId: number; qr: ShownQr }) {
  const t = useMessages();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery({
    ...trpc.order.paymentStatus.queryOptions({ orderId }),
    refetchInterval: (query) => (!query.state.data || qrPaymentState(query.state.data, qr.provider) === "WAITING" ? QR_POLL_MS : false),
    refetchIntervalInBackground: true,
  });
  const state: QrPaymentState = status.data ? qrPaymentState(status.data, qr.provider) : "WAITING";
  useEffect(() => {
    if (state === "WAITING") return;
    void queryClient.invalidateQueries(trpc.order.get.queryFilter({ orderId }));
    void queryClient.invalidateQueries(trpc.order.list.queryFilter());
  }, [state, orderId, queryClient, trpc]);

  const provider = t.providerName[qr.provider];
  const said: Record<QrPaymentState, { tone: string; text: string }> = {
    WAITING: { tone: "wait", text: t.waitingForPayment },
    PAID: { tone: "ok", text: t.paymentDone },
    CLOSED: { tone: "bad", text: t.qrClosed },
    CANCELLED: { tone: "bad", text: t.paymentCancelled(orderId) },
    REFUNDED: { tone: "bad", text: t.refundedNote },
  };
  return (
    <section
      className="card qr-payment"
      aria-label={t.qrCodeLabel(provider)}
      data-testid="qr-payment"
      data-provider={qr.provider}
      data-out-trade-no={qr.outTradeNo}
      data-state={state}
    >
      {state === "WAITING" ? (
        <>
          <QrCode text={qr.codeUrl} label={t.qrCodeLabel(provider)} />
          <p>
            <strong>{t.scanWithWechat}</strong>
          </p>
        </>
      ) : null}
      <p className={`status ${said[state].tone}`} role="status" data-testid="qr-status">
        {said[state].text}
      </p>
      {status.isError ? (
        <p className="status bad" role="alert">
          {errorText(status.error, t)}
        </p>
      ) : null}
      {state !== "WAITING" ? (
        <p>
          <Link href={`/orders?order=${orderId}`}>{t.paidSeeOrders}</Link>
        </p>
      ) : null}
    </section>
  );
}
