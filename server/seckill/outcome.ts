/** What a purchase attempt answers. Refusals are data, not exceptions, so clients can branch. */
export const REFUSALS = [
  "SOLD_OUT",
  "ALREADY_PURCHASED",
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
  | { kind: "refused"; outcome: { status: Refusal } }
  | { kind: "not-warmed" };

const REFUSAL_BY_CODE: Record<number, Refusal> = {
  [-1]: "NOT_STARTED",
  [-2]: "ENDED",
  [-3]: "ALREADY_PURCHASED",
  [-4]: "SOLD_OUT",
  [-5]: "BLACKLISTED",
  [-6]: "REAL_NAME_REQUIRED",
  [-7]: "MEMBER_LEVEL_TOO_LOW",
  [-8]: "INVALID_TOKEN",
};

/** Maps reserve-6.lua's return codes (see its header) to a verdict. */
export function interpretReserveReply(reply: [number, number]): ReserveVerdict {
  const [code, stockLeft] = reply;
  if (code === 1) return { kind: "reserved", stockLeft };
  if (code === 0) return { kind: "not-warmed" };
  const status = REFUSAL_BY_CODE[code];
  if (!status) throw new Error(`reserve script returned an unknown code ${code}`);
  return { kind: "refused", outcome: { status } };
}

export type TokenOutcome =
  | { status: "ISSUED"; token: string; expiresInMs: number }
  | { status: "NOT_STARTED"; startsAt: Date }
  | { status: "ENDED" }
  | { status: "SOLD_OUT" };

/** Maps issue-token-2.lua's return codes; null means the sale is not warmed up. */
export function interpretTokenReply(reply: [number, number], token: string, ttlMs: number): TokenOutcome | null {
  const [code, startsAt] = reply;
  switch (code) {
    case 1:
      return { status: "ISSUED", token, expiresInMs: ttlMs };
    case 0:
      return null;
    case -1:
      return { status: "NOT_STARTED", startsAt: new Date(startsAt) };
    case -2:
      return { status: "ENDED" };
    default:
      throw new Error(`issue-token script returned an unknown code ${code}`);
  }
}
