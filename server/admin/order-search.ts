import "../lib/browser-zod";
import { z } from "zod";
import { ORDER_STATUSES } from "../orders/statuses";
import type { Lang, Localized } from "../platform/i18n";
import { sentence } from "../platform/sentences/sentence";

/**
 * The orders console's search, pure (no server imports) so the page and the procedure read the
 * fields by the same rules: numbers are digits only, paging is bounded.
 */
export const ORDER_PAGE_SIZES = [20, 50, 100] as const;
export const DEFAULT_ORDER_PAGE_SIZE = 50;

export const ORDER_NUMBER_INVALID: Localized = sentence((s) => s.orders.orderNumberInvalid);
export const SALE_NUMBER_INVALID: Localized = sentence((s) => s.orders.saleNumberInvalid);
const MESSAGES = [ORDER_NUMBER_INVALID, SALE_NUMBER_INVALID];

/** A field message from these rules in the operator's language. */
export function searchMessageIn(lang: Lang, message: string): string {
  return MESSAGES.find((m) => m.en === message)?.[lang] ?? message;
}

const id = (invalid: Localized) => z.number({ error: invalid.en }).int(invalid.en).positive(invalid.en).max(2_147_483_647, invalid.en);

export const orderSearchInput = z.object({
  saleId: id(SALE_NUMBER_INVALID).optional(),
  status: z.enum(ORDER_STATUSES).optional(),
  email: z.string().trim().max(191).optional(),
  orderId: id(ORDER_NUMBER_INVALID).optional(),
  page: z.number().int().min(1).max(1_000_000).default(1),
  pageSize: z
    .number()
    .int()
    .refine((n) => (ORDER_PAGE_SIZES as readonly number[]).includes(n))
    .default(DEFAULT_ORDER_PAGE_SIZE),
});
export type OrderSearch = z.input<typeof orderSearchInput>;

/**
 * What the operator typed as an order or sale number: empty is "any", digits are the number,
 * anything else is an error to show by the field (never a search for everything).
 */
export function readIdField(text: string): { ok: true; value: number | undefined } | { ok: false } {
  const trimmed = text.trim().replace(/^#/, "");
  if (trimmed === "") return { ok: true, value: undefined };
  if (!/^[1-9]\d{0,9}$/.test(trimmed) || Number(trimmed) > 2_147_483_647) return { ok: false };
  return { ok: true, value: Number(trimmed) };
}
