/**
 * Money crosses to payment providers as a decimal string of yuan ("99.00", as Alipay's
 * total_amount); inside the app it is integer cents. These convert without floating point.
 */
const AMOUNT = /^(0|[1-9]\d{0,9})\.(\d{2})$/;

export function centsToAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new Error(`not an amount of cents: ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

/** Cents in a provider's amount string, or null if it is not exactly `<yuan>.<2 digits>`. */
export function amountToCents(amount: string): number | null {
  const match = AMOUNT.exec(amount);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number(match[2]);
  return Number.isSafeInteger(cents) ? cents : null;
}
