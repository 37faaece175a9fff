import "../lib/browser-zod";
import { z } from "zod";
import { MAX_STOCK_BUCKETS } from "../sale-redis/buckets";
import type { Lang, Localized } from "../platform/i18n";
import type { Sentences } from "../platform/sentences/en";
import { sentence } from "../platform/sentences/sentence";

/**
 * What an operator types to create or edit a sale and its product. Pure (no server imports), so
 * the admin form and the tRPC procedures validate with the same rules and field messages.
 */

// Zod carries one string per issue: the English one, which the form turns back into the
// operator's language with fieldMessageIn (the tRPC error formatter passes field errors as they are).
const TRANSLATIONS = new Map<string, Localized>();
function say(pick: (s: Sentences) => string): string {
  const text = sentence(pick);
  TRANSLATIONS.set(text.en, text);
  return text.en;
}

/** A field message from these rules in the operator's language (any other text as it is). */
export function fieldMessageIn(lang: Lang, message: string): string {
  return TRANSLATIONS.get(message)?.[lang] ?? message;
}

// "Too large" first and alone: a huge amount in yuan is past safe integers as cents, and "must be
// whole cents" beside it would send the operator after the wrong problem.
const cents = (amount: (s: Sentences) => string) =>
  z
    .number({ error: say((s) => s.saleForm.amountNotANumber(amount(s))) })
    .max(100_000_000, { error: say((s) => s.saleForm.amountTooLarge(amount(s))), abort: true })
    .int(say((s) => s.saleForm.amountNotWholeCents(amount(s))))
    .min(
      1,
      say((s) => s.saleForm.amountBelowOneCent(amount(s))),
    );

/** Where a product image may come from: this site's own files, or an HTTPS address. */
export function isImageUrl(value: string): boolean {
  if (/^\/(?!\/)[^\s\\]*$/.test(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

const imageUrl = z
  .string()
  .trim()
  .max(
    500,
    say((s) => s.saleForm.imageUrlTooLong),
  )
  .refine(
    (v) => v === "" || isImageUrl(v),
    say((s) => s.saleForm.imageUrlNotAllowed),
  )
  .transform((v) => (v === "" ? null : v))
  .nullable()
  .default(null);

/** Places per second a waiting room may admit at most. */
export const MAX_ADMISSION_RATE = 1_000_000;

const saleFields = z.object({
  productName: z
    .string()
    .trim()
    .min(
      1,
      say((s) => s.saleForm.nameMissing),
    )
    .max(
      191,
      say((s) => s.saleForm.nameTooLong),
    ),
  description: z
    .string()
    .trim()
    .max(
      2000,
      say((s) => s.saleForm.descriptionTooLong),
    )
    .default(""),
  imageUrl,
  originalPriceCents: cents((s) => s.saleForm.originalPrice),
  priceCents: cents((s) => s.saleForm.salePrice),
  unitLimit: z
    .number({ error: say((s) => s.saleForm.unitLimitNotANumber) })
    .int(say((s) => s.saleForm.unitLimitNotWhole))
    .min(
      1,
      say((s) => s.saleForm.unitLimitTooSmall),
    )
    .max(
      100,
      say((s) => s.saleForm.unitLimitTooLarge),
    ),
  startsAt: z.coerce.date({ error: say((s) => s.saleForm.startMissing) }),
  endsAt: z.coerce.date({ error: say((s) => s.saleForm.endMissing) }),
  requireRealName: z.boolean().default(false),
  // Left out of a new sale: the shop's default (on in production; createSaleFromForm).
  requireVerifiedContact: z.boolean().optional(),
  accountsCreatedBefore: z.coerce
    .date({
      error: say((s) => s.saleForm.accountsCreatedBeforeInvalid),
    })
    .nullable()
    .default(null),
  minMemberLevel: z
    .number({ error: say((s) => s.saleForm.memberLevelNotANumber) })
    .int(say((s) => s.saleForm.memberLevelNotWhole))
    .min(
      0,
      say((s) => s.saleForm.memberLevelTooSmall),
    )
    .max(
      100,
      say((s) => s.saleForm.memberLevelTooLarge),
    )
    .default(0),
  // Waiting room (issue #31): 0 = none, the sale is bought with purchase tokens as before.
  admissionRate: z
    .number({ error: say((s) => s.saleForm.admissionRateNotANumber) })
    .int(say((s) => s.saleForm.admissionRateNotWhole))
    .min(
      0,
      say((s) => s.saleForm.admissionRateNegative),
    )
    .max(
      MAX_ADMISSION_RATE,
      say((s) => s.saleForm.admissionRateTooLarge),
    )
    .default(0),
  arrivalOrder: z.enum(["RANDOM", "ARRIVAL"], { error: say((s) => s.saleForm.arrivalOrderMissing) }).default("RANDOM"),
  purchaseChallenge: z.boolean().default(false),
});

type SaleFields = z.infer<typeof saleFields>;

export const CHALLENGE_WITHOUT_ROOM = say((s) => s.saleForm.challengeWithoutRoom);

export const REAL_NAME_ONE_BUCKET = say((s) => s.saleForm.realNameOneBucket);

const ENDS_BEFORE_START = say((s) => s.saleForm.endsBeforeStart);
const PRICE_ABOVE_ORIGINAL = say((s) => s.saleForm.priceAboveOriginal);

type AcrossFields = Partial<
  Pick<SaleFields, "priceCents" | "originalPriceCents" | "startsAt" | "endsAt" | "admissionRate" | "purchaseChallenge">
>;

/**
 * Rules between two fields, as field → message; a rule whose fields are not both given (a partial
 * edit) waits for the merged terms. Exported for the form, which shows them with every other field's
 * problem at once (zod skips an object's refinements while a field of it fails).
 */
export function acrossFieldProblems(value: AcrossFields): { field: "purchaseChallenge" | "endsAt" | "priceCents"; message: string }[] {
  const problems: { field: "purchaseChallenge" | "endsAt" | "priceCents"; message: string }[] = [];
  // The challenge is solved while waiting and bound to the room's seat: no room, no challenge.
  if (value.purchaseChallenge && value.admissionRate === 0) problems.push({ field: "purchaseChallenge", message: CHALLENGE_WITHOUT_ROOM });
  if (value.endsAt && value.startsAt && value.endsAt <= value.startsAt) problems.push({ field: "endsAt", message: ENDS_BEFORE_START });
  if (value.priceCents !== undefined && value.originalPriceCents !== undefined && value.priceCents > value.originalPriceCents) {
    problems.push({ field: "priceCents", message: PRICE_ABOVE_ORIGINAL });
  }
  return problems;
}

function checkAcrossFields(value: AcrossFields, ctx: z.RefinementCtx) {
  for (const { field, message } of acrossFieldProblems(value)) ctx.addIssue({ code: "custom", path: [field], message });
}

/**
 * How far in the past a new start may be and still count as "now": the operator's browser clock
 * and the server's differ by a little, and filling in the form takes a moment.
 */
export const START_GRACE_MS = 60_000;

export const START_IN_PAST: Localized = sentence((s) => s.saleForm.startInPast);

/**
 * A start in the past is refused for a new sale, and for an edit that moves the start (a live
 * sale keeps the start it opened with). Shared by the form (before sending) and the server.
 */
export function startIsInPast(startsAt: Date, now: Date, previousStartsAt?: Date): boolean {
  if (previousStartsAt && previousStartsAt.getTime() === startsAt.getTime()) return false;
  return startsAt.getTime() < now.getTime() - START_GRACE_MS;
}

export const newSaleInput = saleFields
  .extend({
    stock: z
      .number({ error: say((s) => s.saleForm.stockNotANumber) })
      .int(say((s) => s.saleForm.stockNotWhole))
      .min(
        1,
        say((s) => s.saleForm.stockTooSmall),
      )
      .max(
        10_000_000,
        say((s) => s.saleForm.stockTooLarge),
      ),
    // Fixed at creation: reservation ids and orders name their bucket. More than 1 only for an
    // item hot enough to need several Redis shards (docs/architecture.md, stock buckets).
    stockBuckets: z
      .number({ error: say((s) => s.saleForm.bucketsNotANumber) })
      .int(say((s) => s.saleForm.bucketsNotWhole))
      .min(
        1,
        say((s) => s.saleForm.bucketsTooFew),
      )
      .max(
        MAX_STOCK_BUCKETS,
        say((s) => s.saleForm.bucketsTooMany(MAX_STOCK_BUCKETS)),
      )
      .default(1),
  })
  .superRefine((value, ctx) => {
    checkAcrossFields(value, ctx);
    // A real-name sale counts a person's units in their home bucket: one bucket, so two accounts
    // of one person always meet the same count (includes/count-shopper.lua).
    if (value.requireRealName && value.stockBuckets > 1)
      ctx.addIssue({ code: "custom", path: ["stockBuckets"], message: REAL_NAME_ONE_BUCKET });
    if (value.stock >= 1 && value.stockBuckets > value.stock) {
      ctx.addIssue({
        code: "custom",
        path: ["stockBuckets"],
        message: say((s) => s.saleForm.bucketsAboveStock),
      });
    }
  });
export type NewSaleInput = z.infer<typeof newSaleInput>;

/** A sale's terms whole, as an edit leaves them once merged with what is stored. */
export const saleTerms = saleFields.superRefine(checkAcrossFields);
export type SaleTerms = z.infer<typeof saleTerms>;

/**
 * An edit changes the fields it names and keeps the rest: a field left out is not reset to a new
 * sale's default (an API client editing the price must not close the waiting room). Editing never
 * touches stock: that goes through admin.adjustStock (the stock ledger).
 */
export const saleEditInput = saleFields
  .extend({
    description: saleFields.shape.description.unwrap(),
    imageUrl: saleFields.shape.imageUrl.unwrap(),
    requireRealName: saleFields.shape.requireRealName.unwrap(),
    accountsCreatedBefore: saleFields.shape.accountsCreatedBefore.unwrap(),
    minMemberLevel: saleFields.shape.minMemberLevel.unwrap(),
    admissionRate: saleFields.shape.admissionRate.unwrap(),
    arrivalOrder: saleFields.shape.arrivalOrder.unwrap(),
    purchaseChallenge: saleFields.shape.purchaseChallenge.unwrap(),
  })
  .partial()
  .extend({ saleId: z.number().int().positive() })
  .superRefine(checkAcrossFields);
export type SaleEditInput = z.infer<typeof saleEditInput>;

export const stockAdjustmentInput = z.object({
  saleId: z.number().int().positive(),
  delta: z
    .number({ error: say((s) => s.saleForm.deltaNotANumber) })
    .int(say((s) => s.saleForm.deltaNotWhole))
    .refine(
      (d) => d !== 0,
      say((s) => s.saleForm.deltaZero),
    )
    .refine(
      (d) => Math.abs(d) <= 10_000_000,
      say((s) => s.saleForm.deltaTooLarge),
    ),
});
