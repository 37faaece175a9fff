/** What a purchase attempt answers. Refusals are data, not exceptions, so clients can branch. */
export type PurchaseOutcome =
  | { status: "QUEUED"; reservationId: string }
  | { status: "SOLD_OUT" }
  | { status: "ALREADY_PURCHASED" }
  | { status: "NOT_STARTED" }
  | { status: "ENDED" };

export type ReserveVerdict =
  | { kind: "reserved"; stockLeft: number }
  | { kind: "refused"; outcome: Exclude<PurchaseOutcome, { status: "QUEUED" }> }
  | { kind: "not-warmed" };

/** Maps reserve-4.lua's return codes (see its header) to a verdict. */
export function interpretReserveReply(reply: [number, number]): ReserveVerdict {
  const [code, stockLeft] = reply;
  switch (code) {
    case 1:
      return { kind: "reserved", stockLeft };
    case 0:
      return { kind: "not-warmed" };
    case -1:
      return { kind: "refused", outcome: { status: "NOT_STARTED" } };
    case -2:
      return { kind: "refused", outcome: { status: "ENDED" } };
    case -3:
      return { kind: "refused", outcome: { status: "ALREADY_PURCHASED" } };
    case -4:
      return { kind: "refused", outcome: { status: "SOLD_OUT" } };
    default:
      throw new Error(`reserve script returned an unknown code ${code}`);
  }
}
