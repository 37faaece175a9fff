"use client";
import { ContactNotVerified } from "./contact-unverified";
import Link from "next/link";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { SaleStanding } from "@/server/seckill/sale-standing";
import type { JoinRefusal, RoomAnswer, Waiting } from "@/server/room-join/join";
import type { RoomChallenge } from "@/server/room/challenge";
import type { SalePhase } from "@/server/seckill/phase";
import { STREAM_RETRY_AFTER_SECONDS } from "@/server/gateway/stream-caps";
import { useMessages } from "../_i18n/client";
import type { Messages, RoomRefusal } from "../_i18n/messages";
import { isMomentary, MAX_AUTO_RETRIES, retryDelayMs } from "./buy-retry";
import { countdownText, openingParts } from "./clock-offset";
import { buyComesBack, orderToPay } from "./checkout";
import { errorText, streamRefused, unaskedErrorText } from "./errors";
import { PayNow } from "./pay-now";
import { boughtNote, resultStatus, RetryButton, soldOutStatus, StatusLine, usePurchaseResult, type Status } from "./purchase-result";
import { RoomChallengeSolver, type ChallengeProgress } from "./room-challenge";
import { parseStoredTicket, roomMoment, seatIdentity, storedTicketKey, waitParts, type RoomMoment } from "./room-wait";
import { useTRPC } from "./trpc";

/** Answers after which another press of Buy makes sense: too early on our clock, the check unfinished. */
const PRESS_AGAIN: ReadonlySet<string> = new Set(["NOT_ADMITTED_YET", "CHALLENGE_REQUIRED"]);
/** Answers after which the ticket buys nothing more: a new seat (or the seat read again) does. */
const JOIN_AGAIN: ReadonlySet<string> = new Set(["TICKET_EXPIRED", "TICKET_USED", "INVALID_TICKET"]);

function readStored(saleId: number, userId: number): Waiting | null {
  try {
    return parseStoredTicket(window.localStorage.getItem(storedTicketKey(saleId, userId)));
  } catch {
    return null; // storage refused (private mode, a policy): the server keeps the seat anyway
  }
}

function store(saleId: number, userId: number, waiting: Waiting | null) {
  try {
    if (waiting) window.localStorage.setItem(storedTicketKey(saleId, userId), JSON.stringify(waiting));
    else window.localStorage.removeItem(storedTicketKey(saleId, userId));
  } catch {
    // as above
  }
}

/**
 * Buy for a sale with a waiting room. A signed-in shopper on the sale page takes a seat at once
 * (room.join) and gets a ticket; the page counts their place and wait down from it on the shop's
 * clock (no request per second) and hears of changes over room.onStatus (the draw, a rate
 * change, the sell-out). At the ticket's admitAt, Buy sends ONE seckill.purchase with the
 * ticket (and the challenge's solution, solved meanwhile in the background); then the same
 * result flow as BuyPanel. The ticket is kept in localStorage so a reload shows the place at once.
 * A room closed and opened again (ROOM_REOPENED) drops the place and joins the new line by itself.
 */
export function RoomPanel({
  saleId,
  signedIn,
  phase,
  now,
  synced,
  soldOut,
  unitsMayReturn,
  standing,
  onSoldOut,
  onStandingChanged,
  onReserved,
}: {
  saleId: number;
  signedIn: boolean;
  phase: SalePhase;
  now: number | null;
  synced: boolean;
  soldOut: boolean;
  unitsMayReturn: number;
  standing: SaleStanding | undefined;
  onSoldOut: () => void;
  onStandingChanged: () => void;
  /** a unit was reserved: the stock line is stale */
  onReserved: () => void;
}) {
  const t = useMessages();
  const trpc = useTRPC();
  // The same query the page already made: no request of its own.
  const me = useQuery({ ...trpc.auth.me.queryOptions(), enabled: signedIn });
  const userId = me.data?.userId ?? null;
  const join = useMutation(trpc.room.join.mutationOptions());
  const purchase = useMutation(trpc.seckill.purchase.mutationOptions());
  const [waiting, setWaiting] = useState<Waiting | null>(null);
  const [ended, setEnded] = useState(false);
  // The join's refusal of who the shopper is (the purchase's words): no seat, nothing to wait for.
  const [refusedAtJoin, setRefusedAtJoin] = useState<JoinRefusal | null>(null);
  const [solution, setSolution] = useState<string | null>(null);
  const [progress, setProgress] = useState<ChallengeProgress | null>(null);
  const [retries, setRetries] = useState(0);
  const pressed = useRef(false);
  // The opening a ROOM_REOPENED named, until the page has a seat in it.
  const [reopenedTo, setReopenedTo] = useState<number | null>(null);
  // The opening of the last seat this page showed, and the seat it got in a room opened again since.
  const shownEpoch = useRef<number | null>(null);
  const [newLineSeat, setNewLineSeat] = useState<string | null>(null);

  const refusedBeforehand = standing?.hint ?? refusedAtJoin;
  const mayJoin =
    signedIn && userId !== null && standing !== undefined && refusedBeforehand === null && phase !== "ENDED" && !soldOut && !ended;

  // The ticket kept from before a reload: its place shows before room.join answers.
  useEffect(() => {
    if (userId !== null) setWaiting((current) => current ?? readStored(saleId, userId));
  }, [saleId, userId]);
  useEffect(() => {
    if (waiting) shownEpoch.current = waiting.epoch;
  }, [waiting]);

  const accept = useCallback(
    (answer: RoomAnswer, from: "join" | "status") => {
      if (answer.status === "SOLD_OUT") return onSoldOut();
      if (answer.status === "ENDED") return setEnded(true);
      if (answer.status === "ROOM_REOPENED") return setReopenedTo(answer.epoch);
      if (answer.status !== "WAITING") return setRefusedAtJoin(answer.status);
      // A seat of a later opening than the one shown (the stream's word, a stored ticket's reload).
      if (from === "join" && shownEpoch.current !== null && answer.epoch > shownEpoch.current) setNewLineSeat(seatIdentity(answer));
      setWaiting((current) => {
        // room.onStatus does not repeat the challenge: the seat's own, from its join, still holds.
        const next =
          from === "status" && current && seatIdentity(current) === seatIdentity(answer)
            ? { ...answer, challenge: current.challenge }
            : answer;
        if (userId !== null) store(saleId, userId, next);
        return next;
      });
    },
    // onSoldOut is new on every render; what it does is not.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see the line above
    [saleId, userId],
  );

  const takeSeat = join.mutate;
  const enter = useCallback(
    (again: boolean) => {
      pressed.current = false;
      purchase.reset();
      if (again) setSolution(null);
      takeSeat({ saleId, ...(again ? { again: true } : {}) }, { onSuccess: (answer) => accept(answer, "join") });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- purchase is new on every render, purchase.reset is stable
    [saleId, takeSeat, accept, purchase.reset],
  );
  useEffect(() => {
    if (mayJoin && join.isIdle) enter(false);
  }, [mayJoin, join.isIdle, enter]);
  // The room was opened again: the old seat is gone. A plain join, as on arrival (the server keeps
  // no seat of the old opening); a join already under way answers first, so there is only one.
  useEffect(() => {
    if (reopenedTo === null || join.isPending) return;
    setReopenedTo(null);
    if (!mayJoin || (waiting && waiting.epoch >= reopenedTo)) return;
    setWaiting(null);
    if (userId !== null) store(saleId, userId, null);
    setSolution(null);
    setProgress(null);
    enter(false);
  }, [reopenedTo, join.isPending, mayJoin, waiting, saleId, userId, enter]);
  // A sale still warming up, or a busy shop: ask again, 300 ms doubling to 3 s, a bounded number of times.
  const retrying = mayJoin && join.isError && isMomentary(join.error) && retries < MAX_AUTO_RETRIES;
  useEffect(() => {
    if (!retrying) return;
    const timer = setTimeout(() => {
      setRetries((n) => n + 1);
      enter(false);
    }, retryDelayMs(retries));
    return () => clearTimeout(timer);
  }, [retrying, retries, enter]);

  // Watched with the seat's first ticket: a re-signed one for the same seat must not reconnect;
  // the same number in a room opened again is another seat.
  const [watched, setWatched] = useState<{ seat: string; ticket: string } | null>(null);
  useEffect(() => {
    if (waiting && seatIdentity(waiting) !== watched?.seat) setWatched({ seat: seatIdentity(waiting), ticket: waiting.ticket });
  }, [waiting, watched?.seat]);
  const reservationId = purchase.data?.status === "QUEUED" ? purchase.data.reservationId : null;
  const roomStream = useSubscription(
    trpc.room.onStatus.subscriptionOptions(
      { saleId, ticket: watched?.ticket ?? "" },
      { enabled: mayJoin && watched !== null && reservationId === null, onData: (answer) => accept(answer, "status") },
    ),
  );
  // Refused over the caps of open streams: the countdown runs on from the ticket meanwhile; ask again later.
  const updatesPaused = roomStream.status === "error" && streamRefused(roomStream.error);
  const resubscribe = roomStream.reset;
  useEffect(() => {
    if (!updatesPaused) return;
    const timer = setTimeout(resubscribe, STREAM_RETRY_AFTER_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, [updatesPaused, resubscribe]);

  const result = usePurchaseResult(reservationId);
  const orderCreated = result.data?.status === "ORDER_CREATED";
  const answer = purchase.data?.status;
  useEffect(() => {
    if (answer === "SOLD_OUT") onSoldOut();
    if (answer === "QUEUED") onReserved();
    if (answer === "UNIT_LIMIT_REACHED" || orderCreated) onStandingChanged();
    // Only a new answer counts: the callbacks are new on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- onSoldOut, onStandingChanged: new each render
  }, [answer, orderCreated]);
  // A unit came back to a sold-out sale: the sold-out answers held here are stale, so the page takes a seat again.
  const wasSoldOut = useRef(soldOut);
  useEffect(() => {
    if (buyComesBack(wasSoldOut.current, soldOut)) {
      pressed.current = false;
      purchase.reset();
      join.reset();
    }
    wasSoldOut.current = soldOut;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- purchase, join: new each render; only a change of soldOut counts
  }, [soldOut]);

  const moment = waiting && now !== null ? roomMoment(waiting, now) : null;
  const challenge = waiting?.challenge as RoomChallenge | undefined;
  // A solve that failed still lets Buy go: the server then says what is missing.
  const ready = !challenge || solution !== null || progress === "failed";
  const settled = purchase.data !== undefined && !PRESS_AGAIN.has(purchase.data.status);

  const buy = () => {
    if (pressed.current || !waiting || moment?.kind !== "ADMITTED") return;
    pressed.current = true;
    purchase.mutate(
      { saleId, ticket: waiting.ticket, ...(solution ? { solution } : {}) },
      {
        onSettled: (outcome, error) => {
          if (error || (outcome && PRESS_AGAIN.has(outcome.status))) pressed.current = false;
        },
      },
    );
  };

  const announcement = useAnnouncement(waiting, moment, t);

  if (!signedIn) {
    if (phase === "ENDED" || soldOut) return <StatusLine saleId={saleId} status={soldOut ? soldOutStatus(t, unitsMayReturn) : null} />;
    return (
      <div className="buy">
        <Link className="button buy-button" href={`/sign-in?next=${encodeURIComponent(`/sales/${saleId}`)}`}>
          {t.signInToJoinRoom}
        </Link>
      </div>
    );
  }

  // A ticket the purchase refused for good is no turn, whatever its moment says: no "buy within" beside Join again.
  const refusedTicket = answer !== undefined && JOIN_AGAIN.has(answer);
  const expired = moment?.kind === "EXPIRED" || refusedTicket;
  const done = orderCreated || refusedBeforehand === "UNIT_LIMIT_REACHED";
  const inRoom = waiting !== null && mayJoin && !done && reservationId === null;
  const reopened = waiting !== null && seatIdentity(waiting) === newLineSeat;
  const status = roomStatus({
    t,
    purchase,
    result,
    reservationId,
    standing,
    refusedAtJoin,
    soldOut,
    unitsMayReturn,
    join,
    retrying,
    moment,
    reopened,
    updatesPaused,
  });
  const payFor = orderToPay(result.data?.status === "ORDER_CREATED" ? result.data.orderId : null, standing?.order);
  return (
    <div className="buy room" data-testid="waiting-room">
      {inRoom ? <RoomLine waiting={waiting} moment={refusedTicket ? null : moment} t={t} /> : null}
      {mayJoin && !waiting ? <p className="muted">{t.joiningRoom}</p> : null}
      <p className="visually-hidden" aria-live="polite" data-testid="room-announcer">
        {announcement}
      </p>
      {challenge && inRoom ? <RoomChallengeSolver challenge={challenge} onSolved={setSolution} onProgress={setProgress} /> : null}
      {done || !waiting || !mayJoin ? null : expired ? (
        <button type="button" className="buy-button" disabled={join.isPending} onClick={() => enter(answer !== "INVALID_TICKET")}>
          {t.joinAgain}
        </button>
      ) : (
        <button
          type="button"
          className="buy-button"
          disabled={!synced || moment?.kind !== "ADMITTED" || !ready || purchase.isPending || settled}
          aria-describedby={status ? `purchase-status-${saleId}` : undefined}
          onClick={buy}
        >
          {purchase.isPending ? t.buying : moment?.kind === "ADMITTED" ? (ready ? t.buyNow : t.gettingReady) : t.waitForTurn}
        </button>
      )}
      {orderCreated && standing && standing.hint !== "UNIT_LIMIT_REACHED" && !soldOut ? (
        <button type="button" className="secondary" disabled={join.isPending} onClick={() => enter(true)}>
          {t.joinAgain}
        </button>
      ) : null}
      {join.isError && !retrying ? (
        <RetryButton
          t={t}
          onRetry={() => {
            setRetries(0);
            join.reset();
          }}
        />
      ) : null}
      <StatusLine saleId={saleId} status={status} />
      {payFor !== null ? <PayNow orderId={payFor} /> : null}
      {refusedAtJoin === "CONTACT_NOT_VERIFIED" || purchase.data?.status === "CONTACT_NOT_VERIFIED" ? <ContactNotVerified /> : null}
    </div>
  );
}

/** The place, the wait and the turn, counted down each render. Not a live region: it changes every second. */
function RoomLine({ waiting, moment, t }: { waiting: Waiting; moment: RoomMoment | null; t: Messages }) {
  const count = (n: number) => new Intl.NumberFormat(t.intlLocale).format(n);
  return (
    <div className="room-line">
      <p className="room-title">{t.inWaitingRoom}</p>
      {moment?.kind === "DRAW_PENDING" ? (
        <>
          <p data-testid="room-draw">
            <time dateTime={new Date(waiting.opensAt).toISOString()}>
              {t.placesDrawnAt(openingParts(new Date(waiting.opensAt), t.intlLocale).time)}
            </time>
          </p>
          <p className="muted">{t.drawExplained}</p>
        </>
      ) : null}
      {moment?.kind === "WAITING" ? (
        <p className="room-wait">
          <strong data-testid="room-place">{t.aheadOfYou(count(moment.ahead))}</strong>
          <span aria-hidden="true"> · </span>
          <span data-testid="room-eta">{t.aboutWait(waitParts(moment.waitMs).count, waitParts(moment.waitMs).unit)}</span>
        </p>
      ) : null}
      {moment?.kind === "ADMITTED" ? (
        <p className="room-turn" data-testid="room-turn">
          {t.yourTurn(countdownText(moment.closesInMs))}
        </p>
      ) : null}
    </div>
  );
}

/**
 * What the polite region says: the seat's place once it is known on this page (the join, or the
 * opening's draw), then the admission when it happens here. Never the countdown.
 */
function useAnnouncement(waiting: Waiting | null, moment: RoomMoment | null, t: Messages): string {
  const [said, setSaid] = useState("");
  const placeSaidFor = useRef<string | null>(null);
  const lastKind = useRef<RoomMoment["kind"] | null>(null);
  useEffect(() => {
    if (!waiting || !moment) return;
    const before = lastKind.current;
    lastKind.current = moment.kind;
    if (moment.kind === "ADMITTED" && before !== null && before !== "ADMITTED") setSaid(t.announceTurn);
    else if (moment.kind === "WAITING" && placeSaidFor.current !== seatIdentity(waiting)) {
      placeSaidFor.current = seatIdentity(waiting);
      setSaid(t.announcePlace(new Intl.NumberFormat(t.intlLocale).format(moment.ahead)));
    }
  }, [waiting, moment, t]);
  return said;
}

/** The one sentence under Buy in the room: the latest thing that happened wins, then what was known before. */
function roomStatus({
  t,
  purchase,
  result,
  reservationId,
  standing,
  refusedAtJoin,
  soldOut,
  unitsMayReturn,
  join,
  retrying,
  moment,
  reopened,
  updatesPaused,
}: {
  t: Messages;
  purchase: { isError: boolean; error: Parameters<typeof errorText>[0] | null; data?: { status: string } | undefined };
  result: Parameters<typeof resultStatus>[1];
  reservationId: string | null;
  standing: SaleStanding | undefined;
  refusedAtJoin: JoinRefusal | null;
  soldOut: boolean;
  unitsMayReturn: number;
  join: { isError: boolean; error: Parameters<typeof errorText>[0] | null };
  retrying: boolean;
  moment: RoomMoment | null;
  /** the page's room.onStatus stream was refused (too many open): changes are not heard until it is back */
  updatesPaused: boolean;
  /** the seat is in a room opened again since the page's last one */
  reopened: boolean;
}): Status {
  const queued = resultStatus(t, result, reservationId);
  if (queued) return queued;
  const bought = standing?.order ? boughtNote(t, standing.order) : null;
  if (standing?.hint === "UNIT_LIMIT_REACHED") return bought ?? { tone: "note", text: t.unitLimitReachedNote };
  if (soldOut) return soldOutStatus(t, unitsMayReturn);
  if (purchase.isError && purchase.error) return { tone: "bad", text: errorText(purchase.error, t) };
  const refused = purchase.data?.status;
  if (refused && refused !== "QUEUED") {
    const text = refused in t.roomRefusal ? t.roomRefusal[refused as RoomRefusal] : t.refusal[refused as keyof Messages["refusal"]];
    return { tone: "bad", text };
  }
  if (standing?.hint) return { tone: "note", text: t.refusal[standing.hint] };
  if (refusedAtJoin) return { tone: "bad", text: t.refusal[refusedAtJoin] };
  if (retrying) return { tone: "wait", text: t.openingNote };
  // The seat is taken by the page itself: its refusals never ask for a press of Buy.
  if (join.isError && join.error) return { tone: "bad", text: isMomentary(join.error) ? t.notOpenYet : unaskedErrorText(join.error, t) };
  if (moment?.kind === "EXPIRED") return { tone: "bad", text: t.passExpired };
  if (reopened) return { tone: "note", text: t.roomReopened };
  if (updatesPaused) return { tone: "note", text: t.roomUpdatesPaused(STREAM_RETRY_AFTER_SECONDS) };
  return bought;
}
