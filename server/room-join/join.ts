import type { Services } from "../platform/services";
import { failClosed } from "../seckill/fail-closed";
import { AppError } from "../platform/errors";
import type { Localized } from "../platform/i18n";
import { gateRefusalError, PASSED_GATE, type PendingGate } from "../gateway/ip-gate";
import { roomKeys } from "../sale-redis/keys";
import { saleBucketCount } from "../sale-redis/sale-buckets";
import { notPurchasable } from "../seckill/purchase";
import type { Refusal } from "../seckill/outcome";
import { codeNames, REPLY_CODES } from "../sale-redis/reply-codes";
import { admissionMoment, aheadOf, type Frontier } from "../room/frontier";
import { placeOf } from "../room/draw";
import { PASS_WINDOW_MS, signTicket } from "../room/ticket";
import { ArrivalRate, BASE_CHALLENGE_COST, challengeCost, roomChallenge } from "../room/challenge";
import { sentence } from "../platform/sentences/sentence";

export const NO_WAITING_ROOM: Localized = sentence((s) => s.seckill.noWaitingRoom);

/** A shopper in the room: their ticket and what the page counts down from. */
export interface Waiting {
  status: "WAITING";
  /** signed (server/room/ticket.ts): the pass the purchase presents from admitAt */
  ticket: string;
  /** the room's opening the seat is in (a room closed and opened again restarts its seats from 1) */
  epoch: number;
  seat: number;
  /** place in line; 0 before the opening's random draw */
  position: number;
  /** epoch ms (the shop's clock) the shopper is admitted; 0 before the draw */
  admitAt: number;
  /** shoppers ahead still waiting, as of this answer */
  ahead: number;
  /** the line, so the page counts `ahead` down itself */
  line: Frontier;
  opensAt: number;
  passWindowMs: number;
  /** the ALTCHA challenge to solve while waiting, when the room has the challenge on */
  challenge?: unknown;
}

/** Who the purchase would refuse for who they are: the join refuses them alike, with no seat. */
export type JoinRefusal = Extract<
  Refusal,
  "BLACKLISTED" | "REAL_NAME_REQUIRED" | "MEMBER_LEVEL_TOO_LOW" | "CONTACT_NOT_VERIFIED" | "ACCOUNT_TOO_NEW"
>;

/**
 * room.onStatus's word to a ticket of an earlier opening: the room was closed and opened again
 * since, so that seat is gone. A plain join gives a place in the new line (`epoch` its opening).
 */
export interface RoomReopened {
  status: "ROOM_REOPENED";
  epoch: number;
}

export type RoomAnswer = Waiting | { status: "SOLD_OUT" } | { status: "ENDED" } | { status: JoinRefusal } | RoomReopened;

/** What a room's state says of one seat: the seat's place, its moment and the ticket naming both. */
export function seatStanding(
  secret: string,
  owner: { saleId: number; userId: number },
  seat: number,
  room: { epoch: number; order: "RANDOM" | "ARRIVAL"; drawn: number | null; line: Frontier; opensAt: number; now: number },
): Waiting {
  // A RANDOM room's early seats have no place until the draw at the opening.
  const position = room.order === "ARRIVAL" ? seat : room.drawn === null ? 0 : placeOf(secret, owner.saleId, seat, room.drawn);
  const admitAt = position === 0 ? 0 : admissionMoment(room.line, position, room.now);
  return {
    status: "WAITING",
    ticket: signTicket(secret, owner, { epoch: room.epoch, seq: seat, position, admitAt }),
    epoch: room.epoch,
    seat,
    position,
    admitAt,
    ahead: position === 0 ? 0 : aheadOf(room.line, position, room.now),
    line: room.line,
    opensAt: room.opensAt,
    passWindowMs: PASS_WINDOW_MS,
  };
}

export type JoinReply = [number, number?, number?, string?, number?, number?, number?, number?, number?, number?, string?, string?];

/** join-room-4.lua's refusals of who the shopper is, as includes/check-purchase.lua's. */
const JOIN_REFUSAL_BY_CODE = codeNames<JoinRefusal>([
  "BLACKLISTED",
  "REAL_NAME_REQUIRED",
  "MEMBER_LEVEL_TOO_LOW",
  "CONTACT_NOT_VERIFIED",
  "ACCOUNT_TOO_NEW",
]);

/** What readJoinReply makes of the script's reply. */
type JoinReading =
  | {
      seat: number;
      epoch: number;
      order: "RANDOM" | "ARRIVAL";
      drawn: number | null;
      line: Frontier;
      opensAt: number;
      now: number;
      challenge: boolean;
    }
  | "ENDED"
  | { refused: JoinRefusal }
  | null;

/** join-room-4.lua's reply (see its header) as the room's state at the join; null = no room meta, "ENDED", or the shopper's refusal. */
export function readJoinReply(reply: JoinReply): JoinReading {
  const [code, seat, drawn, frontier, frontierAt, rate, joined, opensAt, now, challenge, order, epoch] = reply;
  if (code === REPLY_CODES.NOT_WARMED) return null;
  if (code === REPLY_CODES.ENDED) return "ENDED";
  const refused = JOIN_REFUSAL_BY_CODE.get(code);
  if (refused) return { refused };
  if (code !== REPLY_CODES.OK || seat === undefined || frontier === undefined || now === undefined)
    throw new Error(`join-room script returned an unknown code ${code}`);
  return {
    seat,
    epoch: Number(epoch ?? 0),
    order: order === "ARRIVAL" ? "ARRIVAL" : "RANDOM",
    drawn: drawn === undefined || drawn < 0 ? null : drawn,
    line: { frontier: Number(frontier), frontierAt: Number(frontierAt), rate: Number(rate), joined: Number(joined) },
    opensAt: Number(opensAt),
    now,
    challenge: challenge === 1,
  };
}

/**
 * room.join: a seat for the shopper (kept across reloads unless `again`), their place and
 * moment, and the signed ticket; or, for a shopper the purchase would refuse as ineligible, that
 * refusal and no seat. The sold-out flag answers first, with no Redis; then ONE
 * script, sent together with the per-IP gate's count (like seckill.token) unless `again`, which
 * waits for the gate since it gives a new seat.
 */
export async function joinRoom(
  services: Pick<Services, "db" | "env" | "metrics" | "purchaseStats" | "queues" | "redis" | "saleBuckets" | "soldOut">,
  input: { userId: number; saleId: number; again?: boolean },
  ipGate: PendingGate = PASSED_GATE,
): Promise<RoomAnswer> {
  if (services.soldOut.isSoldOut(input.saleId)) return { status: "SOLD_OUT" };
  const { env, redis } = services;
  const keys = roomKeys(env.REDIS_NAMESPACE, input.saleId);
  const run = () =>
    failClosed(
      redis.joinRoom(keys.meta, keys.seats(input.userId), keys.arrivals, keys.eligibility, String(input.userId), input.again ? "1" : "0"),
    );
  let reply: JoinReply;
  if (input.again) {
    const refusal = await ipGate;
    if (refusal) throw gateRefusalError(refusal);
    reply = await run();
  } else {
    const [refusal, replied] = await Promise.all([ipGate, run()]);
    if (refusal) throw gateRefusalError(refusal);
    reply = replied;
  }
  const room = readJoinReply(reply);
  if (room === "ENDED") return { status: "ENDED" };
  if (room !== null && "refused" in room) return { status: room.refused };
  if (room === null) {
    // A warm sale without room meta has no room; a cold one is the token step's "getting ready".
    const buckets = await failClosed(saleBucketCount(services, input.saleId));
    if (buckets === null) throw await notPurchasable(services, input.saleId);
    throw new AppError("PRECONDITION_FAILED", NO_WAITING_ROOM);
  }
  const owner = { saleId: input.saleId, userId: input.userId };
  const waiting = seatStanding(env.SESSION_SECRET, owner, room.seat, room);
  arrivals.observe(input.saleId, room.line.joined, room.now);
  if (room.challenge) {
    const cost = challengeCost(BASE_CHALLENGE_COST, arrivals.perSecond(input.saleId, room.now), room.line.rate);
    waiting.challenge = await roomChallenge(
      env,
      { ...owner, epoch: room.epoch, seat: room.seat },
      { cost, expiresAt: challengeExpiry(room, waiting.admitAt) },
    );
  }
  return waiting;
}

/** Joins per second per room as this process sees them, which set the challenge's cost. */
const arrivals = new ArrivalRate();

/**
 * A challenge lasts as long as its seat's pass: to the end of the pass window, or, for a seat
 * still to be drawn, until every drawn place has had its window.
 */
export function challengeExpiry(room: { line: Frontier; opensAt: number }, admitAt: number): number {
  if (admitAt > 0) return admitAt + PASS_WINDOW_MS;
  return admissionMoment(room.line, room.line.joined, room.opensAt) + PASS_WINDOW_MS;
}
