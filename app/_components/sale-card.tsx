"use client";
import { ContactNotVerified } from "./contact-unverified";
import Link from "next/link";
import dynamic from "next/dynamic";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { SaleView } from "@/server/seckill/catalog";
import { phaseAt, type SalePhase } from "@/server/seckill/phase";
import type { SaleStanding } from "@/server/seckill/sale-standing";
import { useMessages } from "../_i18n/client";
import type { Messages } from "../_i18n/messages";
import { isMomentary, MAX_AUTO_RETRIES, retryDelayMs } from "./buy-retry";
import { buyComesBack, mayBuyAnother, orderToPay } from "./checkout";
import { countdownText, openingParts } from "./clock-offset";
import { errorText, unaskedErrorText } from "./errors";
import { money } from "./money";
import {
  boughtNote,
  createdStatus,
  resultStatus,
  RetryButton,
  soldOutStatus,
  StatusLine,
  usePurchaseResult,
  type ResultReading,
  type Status,
} from "./purchase-result";
import { useServerNow } from "./server-clock";
import { useTRPC } from "./trpc";

// Loaded when first shown, so the catalog's first load does not carry them: only a room sale's
// own page seats anyone, and Pay appears once the shopper has an order.
const RoomPanel = dynamic(() => import("./room-panel").then((module) => module.RoomPanel));
const PayNow = dynamic(() => import("./pay-now").then((module) => module.PayNow));

/** The product picture's box: fixed in the markup so the card does not move as the image loads. */
const IMAGE_SIZE = { width: 320, height: 240 } as const;

/**
 * One sale: picture, price, live stock, the countdown on the shop's clock, and Buy. The catalog
 * shows it in a grid; the sale page shows one. `renderedAt` is the server's clock when it rendered
 * the page: the countdown starts from it instead of waiting for the clock sync.
 */
export function SaleCard({
  sale,
  signedIn,
  detailed = false,
  renderedAt,
}: {
  sale: SaleView;
  signedIn: boolean;
  detailed?: boolean;
  renderedAt?: number;
}) {
  const t = useMessages();
  const { now, synced } = useServerNow(renderedAt);
  // With no time at all yet, the server's view of the phase (as of its answer) stands in.
  const phase = now === null ? sale.phase : phaseAt(sale, new Date(now));
  // A purchase answer can know of the sell-out before the stock poll: kept for this reading of the
  // sale only (a later poll is a new object), so a unit given back puts Buy back.
  const [soldOutAnswer, setSoldOutAnswer] = useState<SaleView | null>(null);
  const soldOut = (sale.stockLeft === 0 || soldOutAnswer === sale) && phase !== "ENDED";
  const Heading = detailed ? "h1" : "h2";
  const trpc = useTRPC();
  // What Buy would refuse, said beforehand, and the shopper's order here if they have one.
  // "always": a shopper back from verifying their email in another tab sees it, however soon.
  const standing = useQuery({
    ...trpc.sale.myStanding.queryOptions({ saleId: sale.id }),
    enabled: signedIn,
    refetchOnWindowFocus: "always",
  });
  const refreshStanding = async () => (await standing.refetch()).data;
  // A reservation took a unit: the stock line says so with the answer, not at the next poll.
  const queryClient = useQueryClient();
  const refreshStock = () => {
    void queryClient.invalidateQueries(trpc.sale.list.queryFilter());
    void queryClient.invalidateQueries(trpc.sale.get.queryFilter({ saleId: sale.id }));
  };

  return (
    <article className={`card sale${detailed ? " detailed" : ""}`} data-testid={`sale-${sale.id}`} aria-labelledby={`sale-${sale.id}-name`}>
      <ProductImage sale={sale} t={t} />
      <div className="row">
        <Heading id={`sale-${sale.id}-name`}>{sale.productName}</Heading>
        <span className={`badge ${soldOut ? "" : phase === "LIVE" ? "live" : phase === "UPCOMING" ? "wait" : ""}`} data-testid="sale-phase">
          {soldOut ? t.soldOutBadge : t.phase[phase]}
        </span>
        {/* Beside the badge it speaks for; out of the card's flow, as it is never seen. */}
        <Announcer phase={phase} soldOut={soldOut} t={t} />
      </div>
      {sale.description ? <p className="muted">{sale.description}</p> : null}
      <p className="price">
        {money(sale.priceCents)}
        <s aria-label={`${t.originalPrice} ${money(sale.originalPriceCents)}`}>{money(sale.originalPriceCents)}</s>
      </p>
      <p className="muted" data-testid="stock-left">
        {sale.stockLeft === null ? t.openingSoon : t.stockLeft(sale.stockLeft, sale.totalStock)} · {t.unitLimit(sale.unitLimit)}
      </p>
      <Countdown phase={phase} now={now} sale={sale} />
      {phase === "UPCOMING" ? <OpensAt startsAt={sale.startsAt} t={t} /> : null}
      {standing.isError ? (
        <p className="status bad" role="alert">
          {errorText(standing.error, t)}
        </p>
      ) : null}
      {detailed && standing.data ? <StandingHintLine standing={standing.data} t={t} /> : null}
      {sale.room && detailed ? (
        <RoomPanel
          saleId={sale.id}
          signedIn={signedIn}
          phase={phase}
          now={now}
          synced={synced}
          soldOut={soldOut}
          unitsMayReturn={sale.unitsMayReturn}
          standing={standing.data}
          onSoldOut={() => setSoldOutAnswer(sale)}
          onStandingChanged={() => void standing.refetch()}
          onReserved={refreshStock}
        />
      ) : sale.room ? (
        // The catalog does not seat anyone: the sale page does, for the shopper who opens it.
        phase === "ENDED" || soldOut ? null : (
          <p className="muted" data-testid="room-note">
            {t.roomOnSalePage}
          </p>
        )
      ) : (
        <BuyPanel
          saleId={sale.id}
          signedIn={signedIn}
          phase={phase}
          live={synced && phase === "LIVE"}
          soldOut={soldOut}
          unitsMayReturn={sale.unitsMayReturn}
          standing={standing.data}
          onSoldOut={() => setSoldOutAnswer(sale)}
          refreshStanding={refreshStanding}
          onReserved={refreshStock}
        />
      )}
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

/** The picture in a box of fixed proportions, or a drawn placeholder of the same size without one. */
function ProductImage({ sale, t }: { sale: SaleView; t: Messages }) {
  if (!sale.imageUrl) {
    return (
      <div className="product-image placeholder" aria-hidden="true" data-testid="product-image">
        <svg
          viewBox="0 0 24 24"
          width="56"
          height="56"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <rect x="3" y="4" width="18" height="16" rx="2" />
          <circle cx="9" cy="10" r="2" />
          <path d="m21 16-5-5-9 9" />
        </svg>
        <span>{t.noPicture}</span>
      </div>
    );
  }
  return (
    // A plain img: small local SVGs, nothing for next/image to optimise.
    // eslint-disable-next-line @next/next/no-img-element -- see the line above
    <img className="product-image" src={sale.imageUrl} alt={t.productImage(sale.productName)} {...IMAGE_SIZE} data-testid="product-image" />
  );
}

/** Eligibility said before pressing anything; a reached limit is said once, by the Buy panel. */
function StandingHintLine({ standing, t }: { standing: SaleStanding; t: Messages }) {
  if (standing.hint === "UNIT_LIMIT_REACHED") return null;
  return (
    <p className={`hint ${standing.hint ? "bad" : "ok"}`} data-testid="standing-hint">
      {standing.hint ? t.standingHint[standing.hint] : t.eligibleHint}
    </p>
  );
}

function Countdown({ phase, now, sale }: { phase: SalePhase; now: number | null; sale: SaleView }) {
  const t = useMessages();
  if (now === null) return <p className="muted countdown">{t.syncingClock}</p>;
  if (phase === "ENDED") return <p className="muted countdown">{t.saleEnded}</p>;
  const [label, target] = phase === "UPCOMING" ? [t.startsIn, sale.startsAt] : [t.endsIn, sale.endsAt];
  return (
    // Not a live region: a ticking one would talk every second. The Announcer says the opening.
    <p className="countdown" data-testid="countdown">
      {label} <strong className="clock">{countdownText(target.getTime() - now)}</strong>
    </p>
  );
}

const noSubscription = () => () => undefined;

/**
 * When the sale opens, in the browser's time zone. The server does not know that zone, so its HTML
 * (and hydration) holds the line's place empty, and the browser's zone fills it at once.
 */
function OpensAt({ startsAt, t }: { startsAt: Date; t: Messages }) {
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const { time, date } = openingParts(startsAt, t.intlLocale);
  return (
    <p className="muted" data-testid="opens-at">
      <time dateTime={startsAt.toISOString()}>{hydrated ? t.opensAt(time, date) : "\u00a0"}</time>
    </p>
  );
}

/**
 * Says the opening and the sell-out to a screen reader, once each, when they happen on this page
 * (not on load: the badge says the state then).
 */
function Announcer({ phase, soldOut, t }: { phase: SalePhase; soldOut: boolean; t: Messages }) {
  const [said, setSaid] = useState("");
  const seen = useRef({ phase, soldOut });
  useEffect(() => {
    const before = seen.current;
    seen.current = { phase, soldOut };
    if (soldOut && !before.soldOut) setSaid(t.announceSoldOut);
    else if (phase === "LIVE" && before.phase === "UPCOMING" && !soldOut) setSaid(t.announceLive);
  }, [phase, soldOut, t]);
  return (
    <p className="visually-hidden" aria-live="polite" data-testid="announcer">
      {said}
    </p>
  );
}

/**
 * Buy. Before the sale is live on the shop's clock the button is disabled and no purchase token
 * exists in the page; at zero the token is fetched, and only then Buy is enabled. One press
 * sends one purchase (a ref guards against a double click landing before React re-renders).
 * A refusal known beforehand (the shopper's standing) or a sell-out keeps it shut and fetches no
 * token. A sale still warming up is asked again by itself, with a growing pause, until it opens.
 * An order offers Pay at once (PayNow); Buy comes back for another unit while the unit limit
 * allows one, and after a sell-out when a unit comes back.
 */
function BuyPanel({
  saleId,
  signedIn,
  phase,
  live,
  soldOut,
  unitsMayReturn,
  standing,
  onSoldOut,
  refreshStanding,
  onReserved,
}: {
  saleId: number;
  signedIn: boolean;
  phase: SalePhase;
  live: boolean;
  soldOut: boolean;
  unitsMayReturn: number;
  standing: SaleStanding | undefined;
  onSoldOut: () => void;
  /** reads the standing again; resolves with the new one */
  refreshStanding: () => Promise<SaleStanding | undefined>;
  /** a unit was reserved: the stock line is stale */
  onReserved: () => void;
}) {
  const t = useMessages();
  const trpc = useTRPC();
  const issue = useMutation(trpc.seckill.token.mutationOptions());
  const purchase = useMutation(trpc.seckill.purchase.mutationOptions());
  const pressed = useRef(false);
  // Set when a press met a sale still warming up: the next token buys without another press.
  const buyWhenReady = useRef(false);
  const [retries, setRetries] = useState(0);
  // The order this page bought last: its Pay stays offered while Buy starts over for another unit.
  const [boughtOrderId, setBoughtOrderId] = useState<number | null>(null);
  const refusedBeforehand = standing?.hint ?? null;
  const reservationId = purchase.data?.status === "QUEUED" ? purchase.data.reservationId : null;
  const mayHaveToken = signedIn && live && standing !== undefined && refusedBeforehand === null && !soldOut && reservationId === null;

  /** Back to a Buy that fetches a fresh token, as on arrival. */
  const startOver = () => {
    pressed.current = false;
    buyWhenReady.current = false;
    setRetries(0);
    purchase.reset();
    issue.reset();
  };

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
  // A sale not warmed up yet, or a busy shop: ask again, 300 ms doubling to 3 s, a bounded number of times.
  const opening = mayHaveToken && issue.isError && isMomentary(issue.error) && retries < MAX_AUTO_RETRIES;
  useEffect(() => {
    if (!opening) return;
    const timer = setTimeout(() => {
      setRetries((n) => n + 1);
      issueToken({ saleId });
    }, retryDelayMs(retries));
    return () => clearTimeout(timer);
  }, [opening, retries, issueToken, saleId]);

  // Answers that change what the page knows: a sell-out, a unit taken, or a limit reached (then its order's link).
  const answer = purchase.data?.status ?? issue.data?.status;
  useEffect(() => {
    if (answer === "SOLD_OUT") onSoldOut();
    if (answer === "QUEUED") onReserved();
    if (answer === "UNIT_LIMIT_REACHED") void refreshStanding();
    // Only a new answer counts: the callbacks are new on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see the line above
  }, [answer]);
  // A unit came back to a sold-out sale: the SOLD_OUT this panel holds is stale, Buy is offered again.
  const wasSoldOut = useRef(soldOut);
  useEffect(() => {
    if (buyComesBack(wasSoldOut.current, soldOut)) startOver();
    wasSoldOut.current = soldOut;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- startOver: new each render; only a change of soldOut counts
  }, [soldOut]);

  const token = issue.data?.status === "ISSUED" ? issue.data.token : null;
  const result = usePurchaseResult(reservationId);
  const createdOrderId = result.data?.status === "ORDER_CREATED" ? result.data.orderId : null;
  useEffect(() => {
    if (createdOrderId === null) return;
    setBoughtOrderId(createdOrderId);
    // Read after the order: a shopper the limit still leaves room for gets Buy back at once.
    void refreshStanding().then((fresh) => {
      if (mayBuyAnother(fresh)) startOver();
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refreshStanding, startOver: new each render; only a new order counts
  }, [createdOrderId]);

  const buy = () => {
    if (pressed.current || !token) return;
    pressed.current = true;
    buyWhenReady.current = false;
    purchase.mutate(
      { saleId, token },
      {
        onSettled: (outcome, error) => {
          // A spent or expired token, a rate limit or an overloaded shop: a fresh token and another press.
          if (error || outcome?.status === "INVALID_TOKEN") {
            pressed.current = false;
            issue.reset();
          }
          // Still warming up: the fresh token buys by itself, as the shopper already asked to.
          if (error && error.data?.code === "PRECONDITION_FAILED" && retries < MAX_AUTO_RETRIES) {
            buyWhenReady.current = true;
            setRetries((n) => n + 1);
          }
        },
      },
    );
  };
  useEffect(() => {
    if (token && buyWhenReady.current) buy();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- buy reads the latest token itself; only a new token counts
  }, [token]);

  const waitingForToken = mayHaveToken && !token && (issue.isIdle || issue.isPending || notStartedYet || opening);
  const retryingPurchase = buyWhenReady.current && !purchase.isPending;
  const status = panelStatus({
    t,
    purchase,
    result,
    reservationId,
    boughtOrderId,
    standing,
    soldOut,
    unitsMayReturn,
    issue,
    opening: opening || retryingPurchase,
  });

  if (!signedIn) {
    if (phase === "ENDED" || soldOut) return <StatusLine saleId={saleId} status={status} />;
    return (
      <div className="buy">
        <Link className="button buy-button" href={`/sign-in?next=${encodeURIComponent(`/sales/${saleId}`)}`}>
          {t.signInToBuy}
        </Link>
      </div>
    );
  }

  // At the limit (now or before): the order is the one thing left to say; Buy has nothing more to do.
  // Just bought, until the standing read after the order says whether another unit may follow.
  const done = createdOrderId !== null || refusedBeforehand === "UNIT_LIMIT_REACHED";
  // Another press makes sense only after a stale token (a fresh one is on its way) or an error.
  const settled = reservationId !== null || (purchase.data !== undefined && purchase.data.status !== "INVALID_TOKEN");
  const payFor = orderToPay(boughtOrderId, standing?.order);
  return (
    <div className="buy">
      {done ? null : (
        <button
          type="button"
          // Beside a Pay offer, Buy (another unit) is the second choice.
          className={`buy-button${payFor !== null ? " secondary" : ""}`}
          disabled={!live || !token || soldOut || purchase.isPending || settled}
          aria-describedby={status ? `purchase-status-${saleId}` : undefined}
          onClick={buy}
        >
          {purchase.isPending ? t.buying : opening || retryingPurchase ? t.opening : waitingForToken ? t.gettingReady : t.buyNow}
        </button>
      )}
      {issue.isError && !opening && !purchase.isPending ? (
        <RetryButton
          t={t}
          onRetry={() => {
            setRetries(0);
            issue.reset();
          }}
        />
      ) : null}
      <StatusLine saleId={saleId} status={status} />
      {payFor !== null ? <PayNow orderId={payFor} /> : null}
      {refusedBeforehand === "CONTACT_NOT_VERIFIED" || purchase.data?.status === "CONTACT_NOT_VERIFIED" ? <ContactNotVerified /> : null}
    </div>
  );
}

/** The one sentence under Buy: the latest thing that happened wins, then what was known before. */
function panelStatus({
  t,
  purchase,
  result,
  reservationId,
  boughtOrderId,
  standing,
  soldOut,
  unitsMayReturn,
  issue,
  opening,
}: {
  t: Messages;
  purchase: { isError: boolean; error: Parameters<typeof errorText>[0] | null; data?: { status: string } | undefined };
  result: ResultReading;
  reservationId: string | null;
  boughtOrderId: number | null;
  standing: SaleStanding | undefined;
  soldOut: boolean;
  unitsMayReturn: number;
  issue: { isError: boolean; error: Parameters<typeof errorText>[0] | null; data?: { status: string } | undefined };
  opening: boolean;
}): Status {
  const queued = resultStatus(t, result, reservationId);
  if (queued) return queued;
  const refused =
    purchase.data && purchase.data.status !== "QUEUED" && purchase.data.status !== "UNIT_LIMIT_REACHED" ? purchase.data.status : null;
  // The order this page bought stays said, beside its Pay, until a newer press says something else.
  if (boughtOrderId !== null && !refused && !purchase.isError) return createdStatus(t, boughtOrderId);
  const bought = standing?.order ? boughtNote(t, standing.order) : null;
  if (bought && standing?.hint === "UNIT_LIMIT_REACHED") return bought;
  if (standing?.hint === "UNIT_LIMIT_REACHED") return { tone: "note", text: t.unitLimitReachedNote };
  if (soldOut) return soldOutStatus(t, unitsMayReturn);
  if (opening) return { tone: "wait", text: t.openingNote };
  if (purchase.isError && purchase.error) return { tone: "bad", text: errorText(purchase.error, t) };
  if (refused) return { tone: "bad", text: t.refusal[refused as keyof Messages["refusal"]] };
  // Known before pressing anything: a fact about this sale and shopper, not an error.
  if (standing?.hint) return { tone: "note", text: t.refusal[standing.hint] };
  // Retried long enough: said in the page's words, with Try again beside it (nobody pressed Buy).
  if (issue.isError && issue.error)
    return { tone: "bad", text: isMomentary(issue.error) ? t.notOpenYet : unaskedErrorText(issue.error, t) };
  if (issue.data && !["ISSUED", "NOT_STARTED", "UNIT_LIMIT_REACHED"].includes(issue.data.status)) {
    return { tone: "bad", text: t.refusal[issue.data.status as keyof Messages["refusal"]] };
  }
  // Bought some, may buy more: the order's link, under a Buy that still works.
  return bought;
}
