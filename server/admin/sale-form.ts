import { z } from "zod";
import { MAX_STOCK_BUCKETS } from "../seckill/buckets";

/**
 * What an operator types to create or edit a sale and its product. Pure (no server imports), so
 * the admin form and the tRPC procedures validate with the same rules and field messages.
 */
const cents = (what: string) =>
  z.number({ error: `${what} must be a number` }).int(`${what} must be whole cents`).min(1, `${what} must be at least 1 cent`).max(100_000_000, `${what} is too large`);

const saleFields = z.object({
  productName: z.string().trim().min(1, "Enter the product's name").max(191, "Keep the name under 191 characters"),
  description: z.string().trim().max(2000, "Keep the description under 2000 characters").default(""),
  originalPriceCents: cents("The original price"),
  priceCents: cents("The sale price"),
  perUserLimit: z.number({ error: "The per-shopper limit must be a number" }).int().min(1, "Allow at least 1 unit per shopper").max(100, "At most 100 units per shopper"),
  startsAt: z.coerce.date({ error: "Enter when the sale starts" }),
  endsAt: z.coerce.date({ error: "Enter when the sale ends" }),
  requireRealName: z.boolean().default(false),
  minMemberLevel: z.number({ error: "The member level must be a number" }).int().min(0, "Member levels start at 0").max(100, "Member levels go up to 100").default(0),
});

type SaleFields = z.infer<typeof saleFields>;

function checkAcrossFields(value: Pick<SaleFields, "priceCents" | "originalPriceCents" | "startsAt" | "endsAt">, ctx: z.RefinementCtx) {
  if (value.endsAt <= value.startsAt) ctx.addIssue({ code: "custom", path: ["endsAt"], message: "The sale must end after it starts" });
  if (value.priceCents > value.originalPriceCents) {
    ctx.addIssue({ code: "custom", path: ["priceCents"], message: "The sale price cannot be above the original price" });
  }
}

export const newSaleInput = saleFields
  .extend({
    stock: z.number({ error: "Stock must be a number" }).int("Stock must be whole units").min(1, "Stock must be at least 1").max(10_000_000, "At most 10,000,000 units"),
    // Fixed at creation: reservation ids and orders name their bucket. More than 1 only for an
    // item hot enough to need several Redis shards (docs/architecture.md, stock buckets).
    stockBuckets: z
      .number({ error: "The stock buckets must be a number" })
      .int("Whole buckets only")
      .min(1, "At least 1 stock bucket")
      .max(MAX_STOCK_BUCKETS, `At most ${MAX_STOCK_BUCKETS} stock buckets`)
      .default(1),
  })
  .superRefine((value, ctx) => {
    checkAcrossFields(value, ctx);
    if (value.stock >= 1 && value.stockBuckets > value.stock) ctx.addIssue({ code: "custom", path: ["stockBuckets"], message: "No more stock buckets than units" });
  });
export type NewSaleInput = z.infer<typeof newSaleInput>;

/** Editing never touches stock: that goes through admin.adjustStock (the stock ledger). */
export const saleEditInput = saleFields.extend({ saleId: z.number().int().positive() }).superRefine(checkAcrossFields);
export type SaleEditInput = z.infer<typeof saleEditInput>;

export const stockAdjustmentInput = z.object({
  saleId: z.number().int().positive(),
  delta: z
    .number({ error: "Enter how many units to add (negative to remove)" })
    .int("Whole units only")
    .refine((d) => d !== 0, "Enter a change other than 0")
    .refine((d) => Math.abs(d) <= 10_000_000, "At most 10,000,000 units at once"),
});
