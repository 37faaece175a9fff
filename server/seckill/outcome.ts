/** What a purchase attempt answers. Refusals are data, not exceptions, so clients can branch. */
export const REFUSALS = [
  "SOLD_OUT",
  "UNIT_LIMIT_REACHED",
  "NOT_STARTED",
  "ENDED",
  "BLACKLISTED",
  "REAL_NAME_REQUIRED",
  "MEMBER_LEVEL_TOO_LOW",
  "CONTACT_NOT_VERIFIED",
  "ACCOUNT_TOO_NEW",
  "INVALID_TOKEN",
] as const;
export type Refusal = (typeof REFUSALS)[number];

/**
 * What a purchase with a waiting-room ticket (server/room/) may answer besides the refusals
 * above: a ticket not genuine for this shopper and sale, spent, past its pass window, or a
 * missing or wrong proof-of-work solution (server/room/challenge.ts).
 */
export const TICKET_REFUSALS = ["INVALID_TICKET", "TICKET_USED", "TICKET_EXPIRED", "CHALLENGE_REQUIRED"] as const;
export type TicketRefusal = (typeof TICKET_REFUSALS)[number];

/** A ticket whose holder is not admitted yet: the moment they are (epoch ms, the shop's clock). */
export type NotAdmittedYet = { status: "NOT_ADMITTED_YET"; admitAt: number };

export type PurchaseOutcome =
  { status: "QUEUED"; reservationId: string } | { status: Refusal } | { status: TicketRefusal } | NotAdmittedYet;

export type ReserveVerdict =
  | { kind: "reserved"; stockLeft: number }
  /** Home bucket empty in a sale of several buckets: the shopper is held, seek stock elsewhere. */
  | { kind: "held" }
  | { kind: "refused"; outcome: { status: Refusal | Exclude<TicketRefusal, "INVALID_TICKET" | "CHALLENGE_REQUIRED"> } | NotAdmittedYet }
  | { kind: "not-warmed" }
  | { kind: "backlog-full" };

const REFUSAL_BY_CODE: Record<number, Refusal> = {
  [-1]: "NOT_STARTED",
  [-2]: "ENDED",
  [-3]: "UNIT_LIMIT_REACHED",
  [-4]: "SOLD_OUT",
  [-5]: "BLACKLISTED",
  [-6]: "REAL_NAME_REQUIRED",
  [-7]: "MEMBER_LEVEL_TOO_LOW",
  [-8]: "INVALID_TOKEN",
  [-14]: "CONTACT_NOT_VERIFIED",
  [-15]: "ACCOUNT_TOO_NEW",
};

/** reserve-unit-with-ticket-7.lua's own refusals (-11 NOT_ADMITTED_YET carries admitAt). */
const TICKET_REFUSAL_BY_CODE: Record<number, "TICKET_EXPIRED" | "TICKET_USED"> = {
  [-12]: "TICKET_EXPIRED",
  [-13]: "TICKET_USED",
};

/** issue-token-5.lua's answer for a sale with a waiting room: tokens are not issued for it. */
export const ROOM_REQUIRED_CODE = -10;

/** Maps reserve-unit-7.lua's answers (see its header) to a verdict. */
export function interpretReserveReply(reply: [number, number]): ReserveVerdict {
  const [code, stockLeft] = reply;
  if (code === 1) return { kind: "reserved", stockLeft };
  if (code === 2) return { kind: "held" };
  if (code === 0) return { kind: "not-warmed" };
  if (code === -9) return { kind: "backlog-full" };
  const status = REFUSAL_BY_CODE[code];
  if (!status) throw new Error(`reserve script returned an unknown code ${code}`);
  return { kind: "refused", outcome: { status } };
}

/** Maps reserve-unit-with-ticket-7.lua's answers (see its header) to a verdict. */
export function interpretTicketReserveReply(reply: [number, number]): ReserveVerdict {
  const [code, value] = reply;
  if (code === -11) return { kind: "refused", outcome: { status: "NOT_ADMITTED_YET", admitAt: value } };
  const status = TICKET_REFUSAL_BY_CODE[code];
  if (status) return { kind: "refused", outcome: { status } };
  if (code === -8) throw new Error("the ticket script returned the token script's code -8");
  return interpretReserveReply(reply);
}

export type TokenOutcome =
  | { status: "ISSUED"; token: string; expiresInMs: number }
  | { status: "NOT_STARTED"; startsAt: Date }
  | { status: Exclude<Refusal, "NOT_STARTED" | "INVALID_TOKEN"> };

/** Not a token answer a shopper sees: purchase.ts turns it into PRECONDITION_FAILED. */
export type TokenReply = TokenOutcome | { status: "ROOM_REQUIRED" };

/** Maps issue-token-5.lua's answers; null means the sale is not warmed up. */
export function interpretTokenReply(reply: [number, number, string?, number?]): TokenReply | null {
  const [code, startsAt, token, msLeft] = reply;
  if (code === 1 && token !== undefined && msLeft !== undefined) return { status: "ISSUED", token, expiresInMs: msLeft };
  if (code === 0) return null;
  if (code === ROOM_REQUIRED_CODE) return { status: "ROOM_REQUIRED" };
  const status = REFUSAL_BY_CODE[code];
  if (!status || status === "INVALID_TOKEN") throw new Error(`seckill script returned an unexpected token-mode code ${code}`);
  return status === "NOT_STARTED" ? { status, startsAt: new Date(startsAt) } : { status };
}
