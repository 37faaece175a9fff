import type { QUEUE } from "@/server/queues/queues";
import type { LedgerState } from "@/server/recovery/invariants";

export interface LedgerLine {
  totalStock: number;
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
  dbStock: number;
}

/** Purchase refusals and the gateway's, as the rejections chart's legend names them. */
export const REFUSAL_EN = {
  SOLD_OUT: "sold out",
  UNIT_LIMIT_REACHED: "unit limit reached",
  NOT_STARTED: "not started",
  ENDED: "ended",
  BLACKLISTED: "blacklisted",
  REAL_NAME_REQUIRED: "real name required",
  MEMBER_LEVEL_TOO_LOW: "member level too low",
  CONTACT_NOT_VERIFIED: "email not verified",
  ACCOUNT_TOO_NEW: "account too new",
  INVALID_TOKEN: "invalid token",
  INVALID_TICKET: "invalid ticket",
  TICKET_USED: "ticket used",
  TICKET_EXPIRED: "ticket expired",
  CHALLENGE_REQUIRED: "challenge required",
  NOT_ADMITTED_YET: "not admitted yet",
  GATEWAY_429: "429 at the gateway (whole shop)",
  FRONT_DOOR_429: "429 at the front door (whole shop)",
};
/** The sale dashboard's words. */
type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export const en = {
  loading: "Loading…",
  title: (id: number, name: string) => `Sale #${id}: ${name}`,
  phase: { UPCOMING: "Upcoming", LIVE: "Live", ENDED: "Ended" } as Record<string, string>,
  was: (price: string) => `was ${price}`,
  unitsPerShopper: (n: number) => `${n} unit(s) per shopper`,
  realNameOnly: "real-name only",
  memberLevelAtLeast: (n: number) => `member level ≥ ${n}`,
  warmUpSection: "Warm-up",
  warmedUp: "Loaded in Redis",
  notWarmedUp: "Not loaded",
  warmUpHelp:
    "Loads stock (from MySQL, minus reservations still on their way), window, unit limit and eligibility into Redis and resets every web instance's sold-out flag.",
  warmUp: "Warm up",
  warmUpAgain: "Warm up again",
  warmSummary: (w: {
    stock: number;
    pendingReservations: number;
    shoppersHolding: number;
    unitLimit: number;
    eligibilityOverrides: number;
  }) =>
    `Loaded ${w.stock} unit(s), ${w.pendingReservations} pending reservation(s) kept, ${w.shoppersHolding} shopper(s) holding units, ${w.unitLimit} unit(s) per shopper, ${w.eligibilityOverrides} eligibility override(s).`,
  liveSection: "Live numbers",
  redisStock: "Redis stock",
  pending: "Pending reservations",
  dbStock: "DB stock",
  totalStock: "Total stock",
  orders: "Orders",
  bucketStocks: (text: string) => `Redis stock by bucket: ${text}`,
  readAgo: (seconds: number) => `Read ${seconds} s ago`,
  stale: (seconds: number, why: string) => `Stale: these numbers were read ${seconds} s ago. ${why} Reading again every second.`,
  staleWhy: {
    REFUSED: "The last reading was refused (too many requests from this address).",
    UNREADABLE: "The last answer was not the console's (a proxy or the gateway answered instead).",
    OTHER: "The last reading failed.",
  } as Record<"REFUSED" | "UNREADABLE" | "OTHER", string>,
  firstReadFailed: (why: string) => `Could not read the dashboard yet: ${why} Trying again every second.`,
  queuesSection: "Queues",
  queueTable: "Queue depth",
  queue: "Queue",
  /** Each queue by its name in BullMQ (server/queues/queues.ts QUEUE). */
  queueNames: {
    "create-order": "create-order",
    "cancel-order": "cancel-order",
    "sweep-orders": "sweep-orders",
    "payment-notify": "payment-notify",
    reconcile: "reconcile",
    "prune-notifications": "prune-notifications",
    "refund-payment": "refund-payment",
  } as Record<QueueName, string>,
  waiting: "Waiting",
  active: "Active",
  delayed: "Delayed",
  failed: "Failed",
  completed: "Completed",
  stockSection: "Stock",
  stockTitle: "Raise or lower stock",
  stockDelta: "Units to add (negative to remove)",
  apply: "Apply",
  stockResult: (r: { totalStock: number; dbStock: number; redisStock: number | null }) =>
    `Total now ${r.totalStock}; DB stock ${r.dbStock}; Redis ${r.redisStock ?? "not loaded"}.`,
  editSection: "Edit sale",
  termsTitle: "Terms",
  save: "Save changes",
  fixFields: "Fix the fields marked above.",
  savedWarmAgain: "Saved. Warm up again to apply the new terms to purchases.",
  refusalSeries: (reason: string) => (REFUSAL_EN as Record<string, string>)[reason] ?? reason,
  ledgerState: { HOLDS: "Invariant holds", NOT_WARMED: "Not warmed up", DRIFT: "Invariant broken" } satisfies Record<LedgerState, string>,
  ratesChart: "Purchases per second",
  ratesCaption: "Purchase attempts, successes and orders written per second",
  attemptsSeries: "attempts/s",
  successesSeries: "successes/s",
  ordersSeries: "orders written/s (worker)",
  rejectionsChart: "Rejections per second",
  rejectionsCaption: "Rejections per second, by reason",
  roomPanel: "Waiting room",
  roomNotLoaded: "The waiting room is not loaded in Redis yet: press Warm up.",
  roomWaiting: "Waiting",
  roomAdmitted: "Admitted",
  roomJoined: "Joined",
  roomRate: "Admission rate",
  roomRateValue: (rate: number) => `${rate.toLocaleString("en")} places/s`,
  roomOldestWait: "Oldest wait",
  roomOldestWaitValue: (seconds: number) => `${seconds.toLocaleString("en")} s`,
  roomOrder: { RANDOM: "early arrivals: random draw at the opening", ARRIVAL: "order of arrival" } as Record<"RANDOM" | "ARRIVAL", string>,
  roomNotDrawn: "places not drawn yet",
  roomDrawn: (drawn: number) => `${drawn.toLocaleString("en")} drawn at the opening`,
  roomChallenge: "proof-of-work challenge on",
  admittedChart: "Admitted per second",
  admittedCaption: "Places admitted from the waiting room per second (sampled at each reading)",
  admittedSeries: "admitted/s",
  notWarmedHint: "Redis holds no stock for this sale yet: press Warm up (the worker also warms every sale before its opening).",
  ledgerLine: (l: LedgerLine) =>
    `total ${l.totalStock} = Redis ${l.redisStock ?? "—"} + pending ${l.pendingReservations} + active orders ${l.activeOrders}; DB stock ${l.dbStock} = ${l.totalStock} − ${l.activeOrders}`,
};

export type DashboardMessages = typeof en;
