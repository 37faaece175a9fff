"use client";
import Link from "next/link";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef, useState, type ReactNode } from "react";
import type { SaleView } from "@/server/seckill/catalog";
import { phaseAt, type SalePhase } from "@/server/seckill/phase";
import type { StandingHint } from "@/server/gateway/sale-standing";
import type { PurchaseResult } from "@/server/seckill/purchase";
import { useMessages } from "../_i18n/client";
import { countdownText } from "./clock-offset";
import { errorText } from "./errors";
import { money } from "./money";
import { useServerNow } from "./server-clock";
import { useTRPC } from "./trpc";

/**
 * One sale: price, live stock, the countdown on the shop's clock, and Buy. The catalog shows it
 * in a grid; the sale page shows one, with the signed-in shopper's standing.
 */
export function SaleCard({ sale, signedIn, detailed = false }: { sale: SaleView; signedIn: boolean; detailed?: boolean }) {
  const t = useMessages();
  const serverNow = useServerNow();
  // Until the clock is synced, the server's view of the phase (as of its answer) stands in.
  const phase = serverNow === null ? sale.phase : phaseAt(sale, new Date(serverNow));
  const soldOut = sale.stockLeft === 0 && phase !== "ENDED";
  const Heading = detailed ? "h1" : "h2";
  const trpc = useTRPC();
  // The sale page says beforehand what Buy would refuse (eligibility, limit already reached).
  const standing = useQuery({ ...trpc.sale.myStanding.queryOptions({ saleId: sale.id }), enabled: detailed && signedIn });

  return (
    <article className={`card sale${detailed ? " detailed" : ""}`} data-testid={`sale-${sale.id}`} aria-labelledby={`sale-${sale.id}-name`}>
      <div className="row">
        <Heading id={`sale-${sale.id}-name`}>{sale.productName}</Heading>
        <span className={`badge ${soldOut ? "" : phase === "LIVE" ? "live" : phase === "UPCOMING" ? "wait" : ""}`} data-testid="sale-phase">
          {soldOut ? t.soldOutBadge : t.phase[phase]}
        </span>
      </div>
      {sale.description ? <p className="muted">{sale.description}</p> : null}
      <p className="price">
        {money(sale.priceCents)}
        <s aria-label={`${t.originalPrice} ${money(sale.originalPriceCents)}`}>{money(sale.originalPriceCents)}</s>
      </p>
      <p className="muted" data-testid="stock-left">
        {sale.stockLeft === null ? t.openingSoon : t.stockLeft(sale.stockLeft, sale.totalStock)} · {t.perUserLimit(sale.perUserLimit)}
      </p>
      <Countdown phase={phase} serverNow={serverNow} sale={sale} />
      {standing.isError ? (
        <p className="status bad" role="alert">
          {errorText(standing.error, t)}
        </p>
      ) : null}
      {standing.data ? (
        <p className={`hint ${standing.data.hint ? "bad" : "ok"}`} data-testid="standing-hint">
          {standing.data.hint ? t.standingHint[standing.data.hint] : t.eligibleHint}
        </p>
      ) : null}
      <BuyPanel
        saleId={sale.id}
        signedIn={signedIn}
        live={serverNow !== null && phase === "LIVE"}
        refusedBeforehand={standing.data?.hint ?? null}
      />
      {detailed ? null : (
        <p className="card-link">
          <Link href={`/sales/${sale.id}`}>
            {t.details}
            <span className="visually-hidden">: {sale.productName}</span>
          </Link>
        </p>
      )}
    </article>
  );
}

function Countdown({ phase, serverNow, sale }: { phase: SalePhase; serverNow: number | null; sale: SaleView }) {
  const t = useMessages();
  if (serverNow === null) return <p className="muted countdown">{t.syncingClock}</p>;
  if (phase === "ENDED") return <p className="muted countdown">{t.saleEnded}</p>;
  const [label, target] = phase === "UPCOMING" ? [t.startsIn, sale.startsAt] : [t.endsIn, sale.endsAt];
  return (
    // Announced on change only by the phase badge; a ticking live region would talk every second.
    <p className="countdown" data-testid="countdown">
      {label} <strong className="clock">{countdownText(target.getTime() - serverNow)}</strong>
    </p>
  );
}

/**
 * Buy. Before the sale is live on the shop's clock the button is disabled and no purchase token
 * exists in the page; at zero the token is fetched, and only then Buy is enabled. One press
 * sends one purchase (a ref guards against a double click landing before React re-renders).
 * A refusal known beforehand (the shopper's standing) keeps it shut and fetches no token.
 */
function BuyPanel({
  saleId,
  signedIn,
  live,
  refusedBeforehand,
}: {
  saleId: number;
  signedIn: boolean;
  live: boolean;
  refusedBeforehand: StandingHint | null;
}) {
  const t = useMessages();
  const trpc = useTRPC();
  const issue = useMutation(trpc.seckill.token.mutationOptions());
  const purchase = useMutation(trpc.seckill.purchase.mutationOptions());
  const pressed = useRef(false);
  const mayHaveToken = signedIn && live && refusedBeforehand === null;

  const issueToken = issue.mutate;
  useEffect(() => {
    if (mayHaveToken && issue.isIdle) issueToken({ saleId });
  }, [mayHaveToken, issue.isIdle, issueToken, saleId]);
  // Our clock estimate can be a few ms early against Redis's: then ask again just after its start.
  const notStartedYet = issue.data?.status === "NOT_STARTED";
  useEffect(() => {
    if (!notStartedYet) return;
    const timer = setTimeout(() => issueToken({ saleId }), 250);
    return () => clearTimeout(timer);
  }, [notStartedYet, issue.submittedAt, issueToken, saleId]);

  const token = issue.data?.status === "ISSUED" ? issue.data.token : null;
  const reservationId = purchase.data?.status === "QUEUED" ? purchase.data.reservationId : null;
  // Pushed by the server (SSE) until final; if the stream fails, poll with backoff instead. Kept
  // in state because the subscription forgets its data when the stream ends.
  const [pushedResult, setPushedResult] = useState<PurchaseResult>();
  const pushed = useSubscription(
    trpc.seckill.onResult.subscriptionOptions(
      { reservationId: reservationId ?? "" },
      { enabled: reservationId !== null, onData: setPushedResult },
    ),
  );
  const polled = useQuery({
    ...trpc.seckill.result.queryOptions({ reservationId: reservationId ?? "" }),
    enabled: reservationId !== null && pushed.status === "error",
    // 300 ms, doubling, at most 3 s, while the order is in the queue.
    refetchInterval: (query) =>
      query.state.data?.status === "QUEUED" || !query.state.data ? Math.min(3000, 300 * 2 ** query.state.dataUpdateCount) : false,
  });
  const result = pushed.status === "error" ? polled : { data: pushedResult, isError: false as const, error: null };

  const buy = () => {
    if (pressed.current || !token) return;
    pressed.current = true;
    purchase.mutate(
      { saleId, token },
      {
        onSettled: (outcome, error) => {
          // A spent or expired token, a rate limit or an overloaded shop: a fresh token and another press.
          if (error || outcome?.status === "INVALID_TOKEN") {
            pressed.current = false;
            issue.reset();
          }
        },
      },
    );
  };

  let status: { tone: string; text: ReactNode } | null = null;
  if (purchase.isError) status = { tone: "bad", text: errorText(purchase.error, t) };
  else if (purchase.data && purchase.data.status !== "QUEUED") status = { tone: "bad", text: t.refusal[purchase.data.status] };
  else if (result.data?.status === "ORDER_CREATED") {
    status = {
      tone: "ok",
      text: (
        <>
          {t.orderCreated(result.data.orderId)}
          <Link href="/orders">{t.myOrders}</Link>
          {t.fullStop}
        </>
      ),
    };
  } else if (result.data?.status === "FAILED") status = { tone: "bad", text: t.orderFailed };
  else if (result.isError) status = { tone: "bad", text: errorText(result.error, t) };
  else if (reservationId) status = { tone: "wait", text: t.inQueue };
  else if (refusedBeforehand) status = { tone: "bad", text: t.refusal[refusedBeforehand] };
  else if (issue.isError) status = { tone: "bad", text: errorText(issue.error, t) };
  else if (issue.data && issue.data.status !== "ISSUED" && issue.data.status !== "NOT_STARTED") {
    status = { tone: "bad", text: t.refusal[issue.data.status] };
  }

  const waitingForToken = mayHaveToken && !token && (issue.isIdle || issue.isPending || notStartedYet);
  // Another press makes sense only after a stale token (a fresh one is on its way) or an error.
  const settled = reservationId !== null || (purchase.data !== undefined && purchase.data.status !== "INVALID_TOKEN");
  return (
    <div className="buy">
      <button
        type="button"
        className="buy-button"
        disabled={!live || !token || purchase.isPending || settled}
        aria-describedby={status ? `purchase-status-${saleId}` : undefined}
        onClick={buy}
      >
        {purchase.isPending ? t.buying : waitingForToken ? t.gettingReady : t.buyNow}
      </button>
      {!signedIn ? (
        <p className="muted">
          <Link href={`/sign-in?next=${encodeURIComponent(`/sales/${saleId}`)}`}>{t.signInToBuy}</Link>
        </p>
      ) : null}
      {issue.isError && !purchase.isPending ? (
        <button type="button" className="secondary" onClick={() => issue.reset()}>
          {t.retry}
        </button>
      ) : null}
      <div aria-live="polite">
        {status ? (
          <p id={`purchase-status-${saleId}`} className={`status ${status.tone}`} data-testid="purchase-status">
            {status.text}
          </p>
        ) : null}
      </div>
    </div>
  );
}
