/**
 * The unit limit: how many units of one sale a shopper may hold, reserved or ordered
 * (`Sale.unitLimit`). The purchase scripts enforce it atomically (includes/check-purchase.lua);
 * every TypeScript place that predicts or checks it asks here, so the rule reads the same everywhere.
 */

/** Whether a shopper holding `held` units may take one more. */
export function mayTakeAnotherUnit(held: number, unitLimit: number): boolean {
  return held < unitLimit;
}

/** Whether a shopper holds more than the limit allows: never true while the invariant holds. */
export function holdsOverUnitLimit(held: number, unitLimit: number): boolean {
  return held > unitLimit;
}

/** Shoppers over the limit, from how many shoppers hold each number of units. */
export function countShoppersOverUnitLimit(shoppersByHeld: ReadonlyArray<{ held: number; shoppers: number }>, unitLimit: number): number {
  return shoppersByHeld.filter((row) => holdsOverUnitLimit(row.held, unitLimit)).reduce((sum, row) => sum + row.shoppers, 0);
}
