/** What a purchase attempt answers. Refusals are data, not exceptions, so clients can branch. */
export const REFUSALS = [
  "SOLD_OUT",
  "UNIT_LIMIT_REACHED",
  "NOT_STARTED",
  "ENDED",
  "BLACKLISTED",
  "REAL_NAME_REQUIRED",
  "MEMBER_LEVEL_TOO_LOW",
  "INVALID_TOKEN",
] as const;
export type Refusal = (typeof REFUSALS)[number];

export type PurchaseOutcome = { status: "QUEUED"; reservationId: string } | { status: Refusal };

export type ReserveVerdict =
  | { kind: "reserved"; stockLeft: number }
  /** Home bucket empty in a sale of several buckets: the shopper is held, seek stock elsewhere. */
  | { kind: "held" }
  | { kind: "refused"; outcome: { status: Refusal } }
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
};

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

export type TokenOutcome =
  | { status: "ISSUED"; token: string; expiresInMs: number }
  | { status: "NOT_STARTED"; startsAt: Date }
  | { status: Exclude<Refusal, "NOT_STARTED" | "INVALID_TOKEN"> };

/** Maps issue-token-5.lua's answers; null means the sale is not warmed up. */
export function interpretTokenReply(reply: [number, number, string?, number?]): TokenOutcome | null {
  const [code, startsAt, token, msLeft] = reply;
  if (code === 1 && token !== undefined && msLeft !== undefined) return { status: "ISSUED", token, expiresInMs: msLeft };
  if (code === 0) return null;
  const status = REFUSAL_BY_CODE[code];
  if (!status || status === "INVALID_TOKEN") throw new Error(`seckill script returned an unexpected token-mode code ${code}`);
  return status === "NOT_STARTED" ? { status, startsAt: new Date(startsAt) } : { status };
}
