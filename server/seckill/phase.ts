/** Where a sale stands at a moment. Pure, so the browser judges it by the same rule on the shop's clock. */
export type SalePhase = "UPCOMING" | "LIVE" | "ENDED";

export function phaseAt(sale: { startsAt: Date; endsAt: Date }, now: Date): SalePhase {
  if (now < sale.startsAt) return "UPCOMING";
  return now < sale.endsAt ? "LIVE" : "ENDED";
}
