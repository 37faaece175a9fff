import type { AppRedis } from "../platform/redis-scripts";
import type { Ticket } from "../room/ticket";
import type { SaleKeys } from "../sale-redis/keys";
import type { NotAdmittedYet, Refusal, TicketRefusal } from "./outcome";
import { codeNames, REFUSAL_CODES, REPLY_CODES, type RefusalName } from "../sale-redis/reply-codes";

/**
 * The two reserve scripts, reserve-unit-7.lua (a purchase token) and
 * reserve-unit-with-ticket-7.lua (a waiting-room ticket): their keys, their calls and their
 * replies read, into one verdict.
 */

export type ReserveVerdict =
  | { kind: "reserved"; stockLeft: number }
  /** Home bucket empty in a sale of several buckets: the shopper is held, seek stock elsewhere. */
  | { kind: "held" }
  | { kind: "refused"; outcome: { status: Refusal | Exclude<TicketRefusal, "INVALID_TICKET" | "CHALLENGE_REQUIRED"> } | NotAdmittedYet }
  | { kind: "not-warmed" }
  | { kind: "backlog-full" };

/** What both calls name: the shopper, the reservation's id and the bucket's share of the backlog bound. */
export interface ReserveCall {
  userId: number;
  reservationId: string;
  maxBacklog: number;
}

/** KEYS of reserve-unit-7.lua, in its order: the shopper's home bucket. */
export function reserveUnitKeyList(keys: SaleKeys, userId: number) {
  return [keys.stock, keys.meta, keys.users, keys.pending, keys.eligibility, keys.token(userId), keys.holds] as const;
}

/** KEYS of reserve-unit-with-ticket-7.lua, in its order: the shopper's home bucket. */
export function reserveWithTicketKeyList(keys: SaleKeys, userId: number, ticket: Pick<Ticket, "epoch" | "seq">) {
  return [keys.stock, keys.meta, keys.users, keys.pending, keys.eligibility, keys.holds, keys.spentTicket(userId, ticket)] as const;
}

/** reserve-unit-7.lua on `keys`' bucket, spending the shopper's token: one round trip. */
export async function reserveUnit(
  redis: Pick<AppRedis, "reserveUnit">,
  keys: SaleKeys,
  call: ReserveCall & { token: string },
): Promise<ReserveVerdict> {
  const { userId, reservationId, token, maxBacklog } = call;
  return readReserveReply(await redis.reserveUnit(...reserveUnitKeyList(keys, userId), String(userId), reservationId, token, maxBacklog));
}

/** reserve-unit-with-ticket-7.lua on `keys`' bucket, spending the ticket within its pass window: one round trip. */
export async function reserveUnitWithTicket(
  redis: Pick<AppRedis, "reserveUnitWithTicket">,
  keys: SaleKeys,
  call: ReserveCall & { ticket: Pick<Ticket, "epoch" | "seq" | "admitAt">; passWindowMs: number },
): Promise<ReserveVerdict> {
  const { userId, reservationId, ticket, passWindowMs, maxBacklog } = call;
  const reply = await redis.reserveUnitWithTicket(
    ...reserveWithTicketKeyList(keys, userId, ticket),
    String(userId),
    reservationId,
    ticket.admitAt,
    passWindowMs,
    maxBacklog,
  );
  return readTicketReserveReply(reply);
}

const REFUSAL_BY_CODE = codeNames(Object.keys(REFUSAL_CODES) as RefusalName[]);

/** reserve-unit-7.lua's reply (see its header) as a verdict. */
export function readReserveReply(reply: readonly [number, number]): ReserveVerdict {
  const [code, stockLeft] = reply;
  if (code === REPLY_CODES.OK) return { kind: "reserved", stockLeft };
  if (code === REPLY_CODES.HELD) return { kind: "held" };
  if (code === REPLY_CODES.NOT_WARMED) return { kind: "not-warmed" };
  if (code === REPLY_CODES.BACKLOG_FULL) return { kind: "backlog-full" };
  const status = REFUSAL_BY_CODE.get(code);
  if (!status) throw new Error(`reserve script returned an unknown code ${code}`);
  return { kind: "refused", outcome: { status } };
}

/** reserve-unit-with-ticket-7.lua's reply (see its header) as a verdict: its own refusals, then reserve-unit-7.lua's. */
export function readTicketReserveReply(reply: readonly [number, number]): ReserveVerdict {
  const [code, value] = reply;
  if (code === REPLY_CODES.NOT_ADMITTED_YET) return { kind: "refused", outcome: { status: "NOT_ADMITTED_YET", admitAt: value } };
  if (code === REPLY_CODES.TICKET_EXPIRED) return { kind: "refused", outcome: { status: "TICKET_EXPIRED" } };
  if (code === REPLY_CODES.TICKET_USED) return { kind: "refused", outcome: { status: "TICKET_USED" } };
  if (code === REPLY_CODES.INVALID_TOKEN) throw new Error(`the ticket script returned the token script's code ${code}`);
  return readReserveReply(reply);
}
