import type { RefusalName, TicketRefusalName } from "../sale-redis/reply-codes";

/**
 * What a purchase attempt answers. Refusals are data, not exceptions, so clients can branch.
 * A shopper's refusal is one of the scripts' (server/sale-redis/reply-codes.ts): a code added there
 * is a refusal here, and app/_i18n/messages.ts must say it.
 */
export type Refusal = RefusalName;

/**
 * What a purchase with a waiting-room ticket (server/room/) may answer besides the refusals
 * above: reserve-unit-with-ticket-7.lua's (spent, past its pass window), and those answered in
 * process: a ticket not genuine for this shopper and sale, or a missing or wrong proof-of-work
 * solution (server/room/challenge.ts).
 */
export type TicketRefusal = Exclude<TicketRefusalName, "NOT_ADMITTED_YET"> | "INVALID_TICKET" | "CHALLENGE_REQUIRED";

/** A ticket whose holder is not admitted yet: the moment they are (epoch ms, the shop's clock). */
export type NotAdmittedYet = { status: "NOT_ADMITTED_YET"; admitAt: number };

export type PurchaseOutcome =
  { status: "QUEUED"; reservationId: string } | { status: Refusal } | { status: TicketRefusal } | NotAdmittedYet;

/** Every status a purchase answers: the label metrics and the dashboard count answers by. */
export type PurchaseStatus = PurchaseOutcome["status"];

export type TokenOutcome =
  | { status: "ISSUED"; token: string; expiresInMs: number }
  | { status: "NOT_STARTED"; startsAt: Date }
  | { status: Exclude<Refusal, "NOT_STARTED" | "INVALID_TOKEN"> };
