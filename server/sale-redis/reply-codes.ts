import { ELIGIBILITY } from "./eligibility";

/**
 * The purchase scripts' reply codes, the one list of them: the Lua names them `REPLY.<name>`,
 * each replaced by its number when the scripts are loaded (withReplyCodes),
 * the parsers read them from here, and the names are the statuses metrics count and the UI words.
 * Scripts: issue-token-5.lua, reserve-unit-7.lua, reserve-unit-with-ticket-7.lua, take-stock-2.lua,
 * join-room-4.lua and the includes they share.
 */

/** A shopper's refusal, from check-purchase.lua or the token check: each has a sentence in app/_i18n/messages.ts. */
export const REFUSAL_CODES = {
  NOT_STARTED: -1,
  ENDED: -2,
  UNIT_LIMIT_REACHED: -3,
  SOLD_OUT: -4,
  BLACKLISTED: -5,
  REAL_NAME_REQUIRED: -6,
  MEMBER_LEVEL_TOO_LOW: -7,
  CONTACT_NOT_VERIFIED: -14,
  ACCOUNT_TOO_NEW: -15,
  INVALID_TOKEN: -8,
} as const;

/** reserve-unit-with-ticket-7.lua's own refusals: each has a sentence in the room's words. */
export const TICKET_REFUSAL_CODES = {
  NOT_ADMITTED_YET: -11,
  TICKET_EXPIRED: -12,
  TICKET_USED: -13,
} as const;

/** Codes that are no refusal a shopper reads: a success, or a state answered as an error. */
export const STATE_CODES = {
  /** issue-token-5.lua: the token; reserve-unit scripts and take-stock-2.lua: the unit; join-room-4.lua: the seat */
  OK: 1,
  /** a sale of several buckets whose bucket here is empty: the shopper is held, the unit sought elsewhere */
  HELD: 2,
  /** no sale (or room) state in Redis: refuse, never guess (fail closed) */
  NOT_WARMED: 0,
  /** too many reservations wait for MySQL: refused before the token or ticket is spent */
  BACKLOG_FULL: -9,
  /** the sale has a waiting room: no token, the shopper buys with a ticket */
  ROOM_REQUIRED: -10,
} as const;

export const REPLY_CODES = { ...STATE_CODES, ...REFUSAL_CODES, ...TICKET_REFUSAL_CODES } as const;

export type RefusalName = keyof typeof REFUSAL_CODES;
export type TicketRefusalName = keyof typeof TICKET_REFUSAL_CODES;
export type ReplyName = keyof typeof REPLY_CODES;

/** The stored eligibility codes that refuse (server/sale-redis/eligibility.ts): each is refused with the reply of its name. */
type IneligibleName = Exclude<keyof typeof ELIGIBILITY, "ELIGIBLE">;
const INELIGIBLE = (Object.keys(ELIGIBILITY) as (keyof typeof ELIGIBILITY)[]).filter(
  (name): name is IneligibleName => name !== "ELIGIBLE",
) satisfies readonly RefusalName[];

/** code -> name, for the parsers. */
export function codeNames<Name extends ReplyName>(names: readonly Name[]): ReadonlyMap<number, Name> {
  return new Map(names.map((name) => [REPLY_CODES[name], name]));
}

/**
 * The Lua the scripts include as "@generated/eligibility-refusals.lua": `REFUSAL_BY_ELIGIBILITY[code]`,
 * the reply refusing a stored eligibility code (nil: eligible).
 */
export function luaEligibilityRefusals(): string {
  const eligibility = INELIGIBLE.map((name) => `  [${ELIGIBILITY[name]}] = ${REPLY_CODES[name]}, -- ${name}`);
  return [
    "-- Generated from server/sale-redis/reply-codes.ts when the scripts are loaded: edit it there.",
    "local REFUSAL_BY_ELIGIBILITY = {",
    ...eligibility,
    "}",
    "",
  ].join("\n");
}

const REPLY_NAME = /\bREPLY\.([A-Za-z_]+)/g;

/**
 * A script's `REPLY.<name>` as its number, put in when the script loads rather than looked up in a
 * table the script would build on every run. A name not in REPLY_CODES fails the load.
 */
export function withReplyCodes(lua: string): string {
  return lua.replace(REPLY_NAME, (_match, name: string) => {
    if (!Object.hasOwn(REPLY_CODES, name)) throw new Error(`REPLY.${name} is no reply code (server/sale-redis/reply-codes.ts)`);
    return String(REPLY_CODES[name as ReplyName]);
  });
}
